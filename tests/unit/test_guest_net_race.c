/* SPDX-License-Identifier: MIT */
/*
 * test_guest_net_race.c - the virtio-net function's BAR and config paths
 * (through the guest's device registry and its PCI bus) entered from two
 * vCPUs while the sidecore raises interrupts, each taking the locks
 * production takes. The function's state is one core's at a time: MSI-X
 * messages leave one at a time, and nothing strays outside the function.
 *
 * guest_net.c, guest_virtio.c and guest_device.c are glue, not pure
 * modules: they are compiled in here, with stand-ins for the console, the
 * sidecore's wake-up and the vCPUs they call.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>

#include "guest/guest_device.c"
#include "guest/guest_net.c"
#include "guest/guest_virtio.c"

#define SLOT		1	/* the first free slot after the host bridge */
#define BAR0		(GUEST_PCI_MMIO_GPA + SLOT * VIRTIO_PCI_BAR_SIZE)
#define BAR_MSIX_TABLE	0x3000	/* where virtio_pci.c puts the table */
#define GUEST_RAM	(1u << 20)
#define MSI_VECTOR	0x30

#define ROUNDS		8
#define MSI_SPIN	20000	/* sending an interrupt: its work, in loop turns */
#define MSI_YIELDS	2	/* turns it offers another core to come in */
#define THREADS		3
#define BURST		4	/* config changes the sidecore reports while unmasked */

static struct net_switch test_switch;
static int in_post, post_overlaps;
static unsigned long posts, wrong_vectors;

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void guest_log(struct guest *g, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%s] ", g->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The sidecore's wake-up call: no core idles in HLT here. */
void sidecore_wake(struct sidecore *sc)
{
	(void)sc;
}

/* Sending to a vCPU on another core: an IPI's worth of work. */
void vcpu_send_interrupt(struct vcpu *v, uint8_t vector)
{
	(void)v;
	if (__atomic_fetch_add(&in_post, 1, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&post_overlaps, 1, __ATOMIC_RELAXED);
	if (vector != MSI_VECTOR)
		__atomic_fetch_add(&wrong_vectors, 1, __ATOMIC_RELAXED);
	for (volatile unsigned int i = 0; i < MSI_SPIN; i++)
		;
	for (unsigned int i = 0; i < MSI_YIELDS &&
	     __atomic_load_n(&in_post, __ATOMIC_ACQUIRE) < 2; i++)
		sched_yield();
	__atomic_fetch_add(&posts, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&in_post, 1, __ATOMIC_ACQ_REL);
}

struct world {
	struct guest guest;
	struct guest_net net;
	struct sidecore sidecore;
	pthread_barrier_t round;
};

static uint64_t bar_access(struct world *w, uint64_t offset, unsigned int size, bool write,
			   uint64_t value)
{
	bool notify;

	assert_true(guest_device_mmio(&w->guest, BAR0 + offset, size, write, &value, &notify));
	return value;
}

/* A config access as a vCPU makes it: the bus takes its lock, then the function's. */
static void config_write(struct world *w, unsigned int reg, unsigned int size, uint32_t value)
{
	pci_ecam_write(&w->guest.pci, (uint64_t)SLOT << 15 | reg, size, value);
}

static uint32_t config_read(struct world *w, unsigned int reg, unsigned int size)
{
	return pci_ecam_read(&w->guest.pci, (uint64_t)SLOT << 15 | reg, size);
}

/* The MSI-X capability's message control, found the way a driver finds it. */
static unsigned int msix_flags(struct world *w)
{
	unsigned int cap = config_read(w, PCI_CAPABILITY_LIST, 1);

	while (cap && config_read(w, cap, 1) != PCI_CAP_ID_MSIX)
		cap = config_read(w, cap + 1, 1);
	assert_int_not_equal(cap, 0);
	return cap + PCI_MSIX_FLAGS;
}

/* A driver's bring-up: memory decoding, MSI-X vector 0 for config changes, DRIVER_OK. */
static void driver_start(struct world *w)
{
	config_write(w, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	config_write(w, msix_flags(w), 2, PCI_MSIX_FLAGS_ENABLE);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_LOWER_ADDR, 4, true, MSI_ADDRESS_BASE);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_UPPER_ADDR, 4, true, 0);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_DATA, 4, true, MSI_VECTOR);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, true, 0);
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true,
		   VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	bar_access(w, VIRTIO_PCI_COMMON_GFSELECT, 4, true, 1);
	bar_access(w, VIRTIO_PCI_COMMON_GF, 4, true, 1);	/* VERSION_1, bit 32 */
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true, VIRTIO_CONFIG_S_ACKNOWLEDGE |
		   VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK);
	bar_access(w, VIRTIO_PCI_COMMON_MSIX, 2, true, 0);
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true, VIRTIO_CONFIG_S_ACKNOWLEDGE |
		   VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK |
		   VIRTIO_CONFIG_S_DRIVER_OK);
	assert_int_equal(bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, false, 0) &
			 VIRTIO_CONFIG_S_DRIVER_OK, VIRTIO_CONFIG_S_DRIVER_OK);
}

/* The sidecore: a config change to report, under its lock as in its poll pass. */
static void sidecore_signal(struct world *w)
{
	spin_lock(&w->sidecore.lock);
	guest_net_interrupt(&w->net.net, VIRTIO_NET_CONFIG_CHANGE);
	sidecore_flush_ports(&w->sidecore, 0);
	spin_unlock(&w->sidecore.lock);
}

static void sidecore_burst(struct world *w)
{
	for (unsigned int i = 0; i < BURST; i++)
		sidecore_signal(w);
}

static void vector_mask(struct world *w)
{
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, true,
		   PCI_MSIX_ENTRY_CTRL_MASKBIT);
}

/* Unmasking sends the message left pending, while the sidecore sends more. */
static void vector_unmask(struct world *w)
{
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, true, 0);
}

/* Another vCPU reads what the sidecore changes, selects queues, rewrites MSI-X control. */
static void reader_round(struct world *w)
{
	bar_access(w, VIRTIO_PCI_COMMON_CFGGENERATION, 1, false, 0);
	bar_access(w, VIRTIO_PCI_COMMON_Q_SELECT, 2, true, 1);
	bar_access(w, VIRTIO_PCI_COMMON_Q_MSIX, 2, false, 0);
	config_write(w, msix_flags(w), 2, PCI_MSIX_FLAGS_ENABLE);
}

/*
 * Each round has two phases, barriers between: first the vector is masked
 * and a change left pending in the PBA; then, all at once, one vCPU unmasks
 * it, the sidecore reports more changes and another vCPU reads.
 */
struct worker {
	struct world *world;
	void (*first)(struct world *w);
	void (*second)(struct world *w);
};

static void *worker_run(void *arg)
{
	struct worker *wk = arg;

	for (unsigned int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&wk->world->round);
		if (wk->first)
			wk->first(wk->world);
		pthread_barrier_wait(&wk->world->round);
		wk->second(wk->world);
	}
	return NULL;
}

static void test_bar_path_races_sidecore(void **state)
{
	const struct worker roles[THREADS] = {
		{ .first = vector_mask, .second = vector_unmask },
		{ .first = sidecore_signal, .second = sidecore_burst },
		{ .second = reader_round },
	};
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 1 };
	struct worker worker[THREADS];
	pthread_t thread[THREADS];
	struct world *w = aligned_alloc(_Alignof(struct world), sizeof(struct world));
	void *ram = test_calloc(1, GUEST_RAM);
	struct guest *g = &w->guest;

	(void)state;
	assert_non_null(w);
	assert_non_null(ram);
	memset(w, 0, sizeof(*w));
	net_switch_init(&test_switch);
	strcpy(g->name, "race");
	g->ram_hpa = (uintptr_t)ram;
	g->ram_size = GUEST_RAM;
	g->vcpu_count = 1;
	g->vcpu[0].guest = g;
	pci_bus_init(&g->pci);
	w->sidecore.sw = &test_switch;
	w->sidecore.tx_holdoff = 1000;	/* 1 ms, the sidecore's, on a 1 MHz TSC */
	assert_true(guest_net_init(&w->net, g, &w->sidecore, mac, false));
	assert_int_equal(w->net.dev.slot, SLOT);
	assert_int_equal(w->sidecore.port_count, 1);
	driver_start(w);
	posts = 0;

	assert_int_equal(pthread_barrier_init(&w->round, NULL, THREADS), 0);
	for (unsigned int i = 0; i < THREADS; i++) {
		worker[i] = roles[i];
		worker[i].world = w;
		assert_int_equal(pthread_create(&thread[i], NULL, worker_run, &worker[i]), 0);
	}
	for (unsigned int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(thread[i], NULL), 0);
	pthread_barrier_destroy(&w->round);

	assert_int_equal(post_overlaps, 0);
	assert_int_equal(wrong_vectors, 0);
	assert_int_equal(w->net.bad_msi, 0);
	/* Each change was sent, or waits in the PBA for the vector's unmasking. */
	assert_true(posts >= ROUNDS && posts <= ROUNDS * (BURST + 1));
	test_free(ram);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar_path_races_sidecore),
	};

	return cmocka_run_group_tests_name("virtio-net BAR path against its sidecore", tests,
					   NULL, NULL);
}
