/* SPDX-License-Identifier: MIT */
/*
 * msix.c - an emulated function's MSI-X table and pending bits (PCI 3.0
 * §6.8.2): per-vector and function masking, messages held while masked and
 * sent when unmasked.
 */
#include <string.h>

#include <linux/pci_regs.h>

#include "vdev/msix.h"

void msix_init(struct msix *m, struct msix_entry *table, uint64_t *pending,
	       unsigned int vectors, msix_send_fn send, void *ctx)
{
	*m = (struct msix){
		.table = table,
		.pending = pending,
		.vectors = vectors,
		.send = send,
		.ctx = ctx,
	};
	memset(table, 0, vectors * sizeof(*table));
	memset(pending, 0, MSIX_PBA_WORDS(vectors) * sizeof(*pending));
	for (unsigned int v = 0; v < vectors; v++)
		table[v].control = PCI_MSIX_ENTRY_CTRL_MASKBIT;	/* PCI 3.0 §6.8.2.9 */
}

static bool msix_masked(const struct msix *m, unsigned int vector)
{
	return m->function_masked || (m->table[vector].control & PCI_MSIX_ENTRY_CTRL_MASKBIT);
}

static void msix_send(const struct msix *m, unsigned int vector)
{
	const struct msix_entry *e = &m->table[vector];

	m->send(m->ctx, (uint64_t)e->address_hi << 32 | e->address_lo, e->data);
}

static void msix_deliver_pending(struct msix *m)
{
	if (!m->enabled)
		return;
	for (unsigned int v = 0; v < m->vectors; v++) {
		uint64_t bit = 1ull << (v % 64);

		if ((m->pending[v / 64] & bit) && !msix_masked(m, v)) {
			m->pending[v / 64] &= ~bit;
			msix_send(m, v);
		}
	}
}

void msix_set_control(struct msix *m, uint16_t control)
{
	m->enabled = control & PCI_MSIX_FLAGS_ENABLE;
	m->function_masked = control & PCI_MSIX_FLAGS_MASKALL;
	msix_deliver_pending(m);
}

bool msix_vector_valid(const struct msix *m, unsigned int vector)
{
	return vector < m->vectors;
}

/* A masked vector's message waits in the PBA until it is unmasked (PCI 3.0 §6.8.2.9). */
enum msix_signal_result msix_signal(struct msix *m, unsigned int vector)
{
	if (!m->enabled)
		return MSIX_OFF;
	if (!msix_vector_valid(m, vector))
		return MSIX_NO_ENTRY;
	if (msix_masked(m, vector)) {
		m->pending[vector / 64] |= 1ull << (vector % 64);
		return MSIX_PENDING;
	}
	msix_send(m, vector);
	return MSIX_SENT;
}

/* PCI 3.0 §6.8.2: software uses aligned dwords; anything else is undefined. */
static bool msix_dword(uint32_t offset, unsigned int size, uint32_t length)
{
	return size == 4 && offset % 4 == 0 && offset < length;
}

static uint32_t *msix_field(const struct msix *m, uint32_t offset)
{
	struct msix_entry *e = &m->table[offset / PCI_MSIX_ENTRY_SIZE];

	switch (offset % PCI_MSIX_ENTRY_SIZE) {
	case PCI_MSIX_ENTRY_LOWER_ADDR:
		return &e->address_lo;
	case PCI_MSIX_ENTRY_UPPER_ADDR:
		return &e->address_hi;
	case PCI_MSIX_ENTRY_DATA:
		return &e->data;
	default:
		return &e->control;
	}
}

uint32_t msix_table_read(const struct msix *m, uint32_t offset, unsigned int size)
{
	if (!msix_dword(offset, size, m->vectors * PCI_MSIX_ENTRY_SIZE))
		return 0;
	return *msix_field(m, offset);
}

void msix_table_write(struct msix *m, uint32_t offset, unsigned int size, uint32_t value)
{
	if (!msix_dword(offset, size, m->vectors * PCI_MSIX_ENTRY_SIZE))
		return;
	switch (offset % PCI_MSIX_ENTRY_SIZE) {
	case PCI_MSIX_ENTRY_LOWER_ADDR:
		value &= ~3u;	/* PCI 3.0 §6.8.2.6: dword aligned */
		break;
	case PCI_MSIX_ENTRY_VECTOR_CTRL:
		value &= PCI_MSIX_ENTRY_CTRL_MASKBIT;	/* the rest is reserved */
		break;
	}
	*msix_field(m, offset) = value;
	if (offset % PCI_MSIX_ENTRY_SIZE == PCI_MSIX_ENTRY_VECTOR_CTRL)
		msix_deliver_pending(m);
}

uint32_t msix_pba_read(const struct msix *m, uint32_t offset, unsigned int size)
{
	if (!msix_dword(offset, size, MSIX_PBA_WORDS(m->vectors) * 8))
		return 0;
	return (uint32_t)(m->pending[offset / 8] >> (offset % 8 * 8));
}
