/* SPDX-License-Identifier: MIT */
/*
 * msix.h - the MSI-X table and pending bit array of an emulated PCI function
 * (PCI 3.0 §6.8.2). The function's model owns the storage and the MSI-X
 * capability: it places table and PBA in a BAR, forwards the guest's
 * accesses there with offsets relative to each structure, and passes on the
 * capability's Message Control after each config write. A vector's message
 * leaves through a callback exactly as the guest wrote it; msi_decode()
 * (vdev/msi.h) says what it means.
 *
 * Nothing here locks: the owner serialises every call for one table.
 */
#ifndef SIDECORE_VDEV_MSIX_H
#define SIDECORE_VDEV_MSIX_H

#include <stdbool.h>
#include <stdint.h>

/* The pending bit array's size in 64-bit words (PCI 3.0 §6.8.2.10). */
#define MSIX_PBA_WORDS(vectors)	(((vectors) + 63) / 64)

/*
 * Delivers one message: address and data are the guest's own values,
 * unchecked; the receiver decodes them with msi_decode() (vdev/msi.h).
 */
typedef void (*msix_send_fn)(void *ctx, uint64_t address, uint32_t data);

/* What msix_signal() did; MSIX_OFF is 0, so the result reads as "MSI-X took it". */
enum msix_signal_result {
	MSIX_OFF,		/* MSI-X disabled: nothing done */
	MSIX_SENT,		/* the message went out */
	MSIX_PENDING,		/* masked: its pending bit is set */
	MSIX_NO_ENTRY,		/* no such vector: ignored */
};

/* One table entry as the guest wrote it (PCI 3.0 §6.8.2.6-9). */
struct msix_entry {
	uint32_t address_lo, address_hi, data, control;
};

/* One function's MSI-X state, embedded by its owner. Fields are private to msix.c. */
struct msix {
	struct msix_entry *table;	/* vectors entries, the owner's */
	uint64_t *pending;		/* MSIX_PBA_WORDS(vectors) words, the owner's */
	unsigned int vectors;
	bool enabled;			/* Message Control: MSI-X Enable */
	bool function_masked;		/* Message Control: Function Mask */
	msix_send_fn send;
	void *ctx;
};

/**
 * msix_init() - bring a table up as after power-on
 * @m: the state to fill in; its old contents are lost
 * @table: storage for @vectors entries
 * @pending: storage for MSIX_PBA_WORDS(@vectors) words
 * @vectors: the table size, 1 to 2048 (PCI 3.0 §6.8.2.3)
 * @send: delivers the messages; never NULL
 * @ctx: passed to @send
 *
 * MSI-X starts disabled and unmasked with every vector masked and nothing
 * pending (PCI 3.0 §6.8.2.3, §6.8.2.9).
 */
void msix_init(struct msix *m, struct msix_entry *table, uint64_t *pending,
	       unsigned int vectors, msix_send_fn send, void *ctx);

/**
 * msix_set_control() - take the capability's Message Control
 * @m: the table
 * @control: Message Control as the guest left it
 *
 * Takes MSI-X Enable and Function Mask (PCI 3.0 §6.8.2.3), then sends every
 * pending message they now let through.
 */
void msix_set_control(struct msix *m, uint16_t control);

/**
 * msix_vector_valid() - whether a vector has a table entry
 * @m: the table
 * @vector: the vector number
 *
 * Return: true if @vector is below the table size.
 */
bool msix_vector_valid(const struct msix *m, unsigned int vector);

/**
 * msix_signal() - raise a vector
 * @m: the table
 * @vector: the vector; one without a table entry is ignored
 *
 * Sends the vector's message, or sets its pending bit while the vector or
 * the function is masked (PCI 3.0 §6.8.2.9).
 *
 * Return: MSIX_OFF, having done nothing, when MSI-X is disabled: the
 * function then signals some other way. Otherwise what became of the
 * message: only MSIX_PENDING changed what the guest can read.
 */
enum msix_signal_result msix_signal(struct msix *m, unsigned int vector);

/**
 * msix_table_read() - a guest read from the table
 * @m: the table
 * @offset: bytes from the table's start
 * @size: the access width in bytes
 *
 * Return: the dword at @offset; 0 for any access that is not an aligned
 * dword inside the table (PCI 3.0 §6.8.2 leaves those undefined).
 */
uint32_t msix_table_read(const struct msix *m, uint32_t offset, unsigned int size);

/**
 * msix_table_write() - a guest write to the table
 * @m: the table
 * @offset: bytes from the table's start
 * @size: the access width in bytes
 * @value: the value, in its low @size bytes
 *
 * Only an aligned dword inside the table is written. Writing a Vector
 * Control sends every pending message that is no longer masked.
 */
void msix_table_write(struct msix *m, uint32_t offset, unsigned int size, uint32_t value);

/**
 * msix_pba_read() - a guest read from the pending bit array
 * @m: the table
 * @offset: bytes from the PBA's start
 * @size: the access width in bytes
 *
 * The PBA is read-only (PCI 3.0 §6.8.2.10): there is no write.
 *
 * Return: the pending bits of the dword at @offset; 0 for any access that
 * is not an aligned dword inside the PBA.
 */
uint32_t msix_pba_read(const struct msix *m, uint32_t offset, unsigned int size);

#endif
