/* SPDX-License-Identifier: MIT */
/*
 * test_msix.c - unit tests for hv/vdev/msix.c: entries read back as written
 * less their fixed bits, a masked vector's message waits in the PBA and goes
 * out once when vector and function are unmasked, nothing goes out while
 * MSI-X is disabled, and accesses other than aligned dwords inside the
 * table or PBA do nothing (PCI 3.0 §6.8.2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <linux/pci_regs.h>

#include "vdev/msix.h"

#define VECTORS		4
#define VECTORS_BIG	96	/* two PBA words, the second one half used */
#define ADDRESS		0xfee01000u
#define DATA_BASE	0x40

struct message {
	uint64_t address;
	uint32_t data;
};

struct fixture {
	struct msix msix;
	struct msix_entry table[VECTORS_BIG];
	uint64_t pending[MSIX_PBA_WORDS(VECTORS_BIG)];
	struct message sent[16];
	unsigned int sends;
};

static void record(void *ctx, uint64_t address, uint32_t data)
{
	struct fixture *f = ctx;

	assert_true(f->sends < sizeof(f->sent) / sizeof(f->sent[0]));
	f->sent[f->sends++] = (struct message){ address, data };
}

static int fixture_setup(void **state)
{
	struct fixture *f = test_calloc(1, sizeof(*f));

	if (!f)
		return -1;
	msix_init(&f->msix, f->table, f->pending, VECTORS, record, f);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	test_free(*state);
	return 0;
}

static uint32_t entry_read(struct fixture *f, unsigned int vector, unsigned int field)
{
	return msix_table_read(&f->msix, vector * PCI_MSIX_ENTRY_SIZE + field, 4);
}

static void entry_write(struct fixture *f, unsigned int vector, unsigned int field,
			uint32_t value)
{
	msix_table_write(&f->msix, vector * PCI_MSIX_ENTRY_SIZE + field, 4, value);
}

/* What Linux's msix_setup_entries() does: address and data, then unmask. */
static void entry_program(struct fixture *f, unsigned int vector)
{
	entry_write(f, vector, PCI_MSIX_ENTRY_LOWER_ADDR, ADDRESS);
	entry_write(f, vector, PCI_MSIX_ENTRY_UPPER_ADDR, 0);
	entry_write(f, vector, PCI_MSIX_ENTRY_DATA, DATA_BASE + vector);
	entry_write(f, vector, PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

static uint32_t pba(struct fixture *f, unsigned int offset)
{
	return msix_pba_read(&f->msix, offset, 4);
}

/* PCI 3.0 §6.8.2.3, §6.8.2.9: disabled, every vector masked, nothing pending. */
static void test_power_on(void **state)
{
	struct fixture *f = *state;

	for (unsigned int v = 0; v < VECTORS; v++) {
		assert_int_equal(entry_read(f, v, PCI_MSIX_ENTRY_LOWER_ADDR), 0);
		assert_int_equal(entry_read(f, v, PCI_MSIX_ENTRY_UPPER_ADDR), 0);
		assert_int_equal(entry_read(f, v, PCI_MSIX_ENTRY_DATA), 0);
		assert_int_equal(entry_read(f, v, PCI_MSIX_ENTRY_VECTOR_CTRL),
				 PCI_MSIX_ENTRY_CTRL_MASKBIT);
	}
	assert_int_equal(pba(f, 0), 0);
	assert_true(msix_vector_valid(&f->msix, 0));
	assert_true(msix_vector_valid(&f->msix, VECTORS - 1));
	assert_false(msix_vector_valid(&f->msix, VECTORS));
	/* Disabled: the caller signals some other way; nothing is kept. */
	assert_int_equal(msix_signal(&f->msix, 0), MSIX_OFF);
	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal(pba(f, 0), 0);
	assert_int_equal(f->sends, 0);
}

/* The message goes out as written, the address's bits 1:0 cleared (§6.8.2.6). */
static void test_send(void **state)
{
	struct fixture *f = *state;

	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	entry_program(f, 1);
	entry_write(f, 1, PCI_MSIX_ENTRY_LOWER_ADDR, ADDRESS | 3);
	entry_write(f, 1, PCI_MSIX_ENTRY_UPPER_ADDR, 0x12);
	assert_int_equal(entry_read(f, 1, PCI_MSIX_ENTRY_LOWER_ADDR), ADDRESS);
	assert_int_equal(msix_signal(&f->msix, 1), MSIX_SENT);
	assert_int_equal(f->sends, 1);
	assert_int_equal(f->sent[0].address, 0x12ull << 32 | ADDRESS);
	assert_int_equal(f->sent[0].data, DATA_BASE + 1);
	assert_int_equal(pba(f, 0), 0);
}

/* §6.8.2.9: a masked vector sets its pending bit; unmasking sends it once. */
static void test_vector_mask(void **state)
{
	struct fixture *f = *state;

	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	entry_program(f, 2);
	entry_write(f, 2, PCI_MSIX_ENTRY_VECTOR_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT);
	assert_int_equal(msix_signal(&f->msix, 2), MSIX_PENDING);
	assert_int_equal(msix_signal(&f->msix, 2), MSIX_PENDING);
	assert_int_equal(f->sends, 0);
	assert_int_equal(pba(f, 0), 1u << 2);
	/* Another vector's Vector Control leaves vector 2 waiting. */
	entry_write(f, 1, PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
	assert_int_equal(f->sends, 0);
	entry_write(f, 2, PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
	assert_int_equal(f->sends, 1);
	assert_int_equal(f->sent[0].data, DATA_BASE + 2);
	assert_int_equal(pba(f, 0), 0);
	entry_write(f, 2, PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
	assert_int_equal(f->sends, 1);
}

/* §6.8.2.3: the function mask holds every vector; clearing it sends them in order. */
static void test_function_mask(void **state)
{
	struct fixture *f = *state;

	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	for (unsigned int v = 0; v < VECTORS; v++)
		entry_program(f, v);
	msix_signal(&f->msix, 3);
	msix_signal(&f->msix, 0);
	msix_signal(&f->msix, 1);
	assert_int_equal(f->sends, 0);
	assert_int_equal(pba(f, 0), 1u << 0 | 1u << 1 | 1u << 3);
	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal(f->sends, 3);
	assert_int_equal(f->sent[0].data, DATA_BASE + 0);
	assert_int_equal(f->sent[1].data, DATA_BASE + 1);
	assert_int_equal(f->sent[2].data, DATA_BASE + 3);
	assert_int_equal(pba(f, 0), 0);
}

/* A pending message outlives a disable and goes out when MSI-X comes back. */
static void test_disable_keeps_pending(void **state)
{
	struct fixture *f = *state;

	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	entry_program(f, 0);
	entry_write(f, 0, PCI_MSIX_ENTRY_VECTOR_CTRL, PCI_MSIX_ENTRY_CTRL_MASKBIT);
	msix_signal(&f->msix, 0);
	msix_set_control(&f->msix, 0);
	entry_write(f, 0, PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
	assert_int_equal(f->sends, 0);
	assert_int_equal(pba(f, 0), 1);
	assert_false(msix_signal(&f->msix, 0));
	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal(f->sends, 1);
	assert_int_equal(pba(f, 0), 0);
}

/* Vectors without an entry (virtio's NO_VECTOR among them) raise nothing. */
static void test_vector_out_of_range(void **state)
{
	struct fixture *f = *state;

	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	assert_int_equal(msix_signal(&f->msix, VECTORS), MSIX_NO_ENTRY);
	assert_int_equal(msix_signal(&f->msix, 0xffff), MSIX_NO_ENTRY);
	assert_int_equal(msix_signal(&f->msix, ~0u), MSIX_NO_ENTRY);
	assert_int_equal(pba(f, 0), 0);
	assert_int_equal(f->pending[0], 0);
	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal(f->sends, 0);
}

/* §6.8.2: aligned dwords only, inside the structure; reserved control bits read 0. */
static void test_access_rules(void **state)
{
	struct fixture *f = *state;
	static const unsigned int sizes[] = { 0, 1, 2, 3, 8 };
	uint32_t table = VECTORS * PCI_MSIX_ENTRY_SIZE;

	entry_write(f, 0, PCI_MSIX_ENTRY_VECTOR_CTRL, 0xffffffff);
	assert_int_equal(entry_read(f, 0, PCI_MSIX_ENTRY_VECTOR_CTRL), PCI_MSIX_ENTRY_CTRL_MASKBIT);
	entry_write(f, 0, PCI_MSIX_ENTRY_DATA, 0x41);
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		msix_table_write(&f->msix, PCI_MSIX_ENTRY_DATA, sizes[s], 0xffffffff);
		assert_int_equal(msix_table_read(&f->msix, PCI_MSIX_ENTRY_DATA, sizes[s]), 0);
		assert_int_equal(msix_pba_read(&f->msix, 0, sizes[s]), 0);
	}
	msix_table_write(&f->msix, PCI_MSIX_ENTRY_DATA + 2, 4, 0xffffffff);
	assert_int_equal(msix_table_read(&f->msix, PCI_MSIX_ENTRY_DATA + 2, 4), 0);
	assert_int_equal(entry_read(f, 0, PCI_MSIX_ENTRY_DATA), 0x41);
	/* Past the last entry: nothing there, nothing written. */
	msix_table_write(&f->msix, table, 4, 0xffffffff);
	msix_table_write(&f->msix, UINT32_MAX - 3, 4, 0xffffffff);
	assert_int_equal(msix_table_read(&f->msix, table, 4), 0);
	assert_int_equal(msix_table_read(&f->msix, UINT32_MAX - 3, 4), 0);
	assert_int_equal(f->table[VECTORS].control, 0);
	/* One PBA word: bytes 0-7. */
	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	msix_signal(&f->msix, 0);
	assert_int_equal(pba(f, 0), 1);
	assert_int_equal(pba(f, 4), 0);
	assert_int_equal(msix_pba_read(&f->msix, 2, 4), 0);
	assert_int_equal(pba(f, 8), 0);
	assert_int_equal(pba(f, UINT32_MAX - 3), 0);
}

/* A table of 96: vector 32 is bit 0 of PBA dword 1, vectors 64-95 fill dword 2. */
static void test_large_table(void **state)
{
	struct fixture *f = *state;

	msix_init(&f->msix, f->table, f->pending, VECTORS_BIG, record, f);
	assert_true(msix_vector_valid(&f->msix, VECTORS_BIG - 1));
	assert_false(msix_vector_valid(&f->msix, VECTORS_BIG));
	assert_int_equal(entry_read(f, VECTORS_BIG - 1, PCI_MSIX_ENTRY_VECTOR_CTRL),
			 PCI_MSIX_ENTRY_CTRL_MASKBIT);
	msix_set_control(&f->msix, PCI_MSIX_FLAGS_ENABLE);
	msix_signal(&f->msix, 32);
	msix_signal(&f->msix, 64);
	msix_signal(&f->msix, VECTORS_BIG - 1);
	assert_int_equal(pba(f, 0), 0);
	assert_int_equal(pba(f, 4), 1);
	assert_int_equal(pba(f, 8), 1u << 31 | 1);
	assert_int_equal(pba(f, 12), 0);
	assert_int_equal(pba(f, 16), 0);
	entry_program(f, 64);
	assert_int_equal(f->sends, 1);
	assert_int_equal(f->sent[0].data, DATA_BASE + 64);
	assert_int_equal(pba(f, 8), 1u << 31);
	assert_int_equal(pba(f, 4), 1);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_power_on),
		T(test_send),
		T(test_vector_mask),
		T(test_function_mask),
		T(test_disable_keeps_pending),
		T(test_vector_out_of_range),
		T(test_access_rules),
		T(test_large_table),
	};

	return cmocka_run_group_tests_name("msix", tests, NULL, NULL);
}
