/* SPDX-License-Identifier: MIT */
/*
 * e1000_model.h - a register-level model of the Intel 82540EM for host tests.
 *
 * The model is the NIC as the 8254x SDM describes it, not as an emulator
 * implements it: CTRL.RST resets the registers and reads back set for a few
 * microseconds of model time, the link comes up some time after CTRL.SLU,
 * EERD reads an EEPROM that holds the MAC, RAR0 is loaded from it at reset.
 * Received frames go through the address filter into the descriptor at RDH
 * (or are missed, counted in MPC); transmit runs when TDT is written, with
 * legacy, context and data descriptors, checksum insertion and TCP
 * segmentation, and puts frames on a wire queue the test reads.
 *
 * Knobs let a test make it behave like an emulator (fewer RAR entries, no
 * receive checksum, no RAR0 at reset) or misbehave (stop transmitting,
 * write back a garbage length).
 */
#ifndef SIDECORE_TESTS_E1000_MODEL_H
#define SIDECORE_TESTS_E1000_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/net/nic.h"

#define E1000_MODEL_MEM		(4u << 20)	/* the DMA arena */
#define E1000_MODEL_BUS_BASE	0x40000000ull	/* its first bus address */
#define E1000_MODEL_RESET_US	5		/* CTRL.RST reads set this long */
#define E1000_MODEL_LINK_US	200		/* link up this long after SLU */
#define E1000_MODEL_TX_MAX	(256u << 10)	/* bytes one transmitted packet may gather */

struct e1000_model_frame {
	struct e1000_model_frame *next;
	uint32_t len;
	uint8_t data[];
};

struct e1000_model {
	uint32_t reg[0x20000 / 4];	/* BAR 0, 128 KiB */
	uint16_t eeprom[64];
	uint8_t *mem;			/* the arena; bus address = BUS_BASE + offset */
	size_t mem_used;
	uint64_t now_us;
	uint64_t reset_until_us;	/* CTRL.RST reads set before this */
	uint64_t link_at_us;		/* STATUS.LU from this time, if the cable is in */
	bool cable;			/* a link partner is there */

	/* Knobs. */
	unsigned int rar_entries;	/* RAR entries that exist (16; Bochs keeps 4) */
	bool rar0_from_eeprom;		/* reset loads RAR0 (true; Bochs, QEMU: no, yes) */
	bool rx_ixsm;			/* never check receive checksums (Bochs, QEMU) */
	bool tx_paused;			/* TDT is latched but nothing is sent */
	uint16_t rx_bad_length;		/* when not 0, written back as every length */

	/* What happened. */
	uint64_t missed;		/* frames without a descriptor (also in MPC) */
	uint64_t filtered;		/* frames the address filter turned away */
	uint64_t dma_errors;		/* accesses outside the arena */
	uint64_t tx_errors;		/* packets dropped: bad descriptors, too long */
	uint64_t reads, writes;		/* register accesses */
	uint64_t tdt_writes;		/* of those: doorbells */

	/* Transmit state across descriptors (§3.3). */
	struct {
		uint8_t ipcss, ipcso, tucss, tucso, hdr_len;
		uint16_t ipcse, tucse, mss;
		uint32_t paylen;
		bool tcp, ipv4, tse;
	} ctx;
	uint8_t *tx_buf;
	uint32_t tx_len;
	uint32_t tx_popts;		/* from the packet's first data descriptor */
	bool tx_tse, tx_legacy_ic, tx_bad;
	uint8_t tx_css, tx_cso;

	struct e1000_model_frame *wire_head, *wire_tail;
	unsigned int wire_count;
	uint64_t wire_total;		/* frames ever sent */
};

/* A model with its EEPROM holding @mac, just powered on (reset, link down). */
struct e1000_model *e1000_model_new(const uint8_t mac[ETH_ALEN]);
void e1000_model_free(struct e1000_model *m);

/* The bus a driver uses to reach the model. */
struct nic_io e1000_model_io(struct e1000_model *m);

/* A register's value, without the side effects of a read. */
uint32_t e1000_model_peek(const struct e1000_model *m, uint32_t offset);

/* The arena behind @bus..@bus+@len, or NULL when it lies outside. */
void *e1000_model_dma(struct e1000_model *m, uint64_t bus, size_t len);

/*
 * A frame arrives from the wire (without FCS). Returns true when it went
 * into a receive descriptor; false when receive is off, the link is down,
 * the filter turned it away or no descriptor was free (missed).
 */
bool e1000_model_receive(struct e1000_model *m, const void *frame, uint32_t len);

/* Takes the oldest transmitted frame off the wire; its length, 0 if none. */
uint32_t e1000_model_wire_pop(struct e1000_model *m, uint8_t *buf, uint32_t cap);

/* Plugs or unplugs the cable. */
void e1000_model_set_cable(struct e1000_model *m, bool in);

/* Stops sending (TDT writes are latched) or sends what is pending and goes on. */
void e1000_model_tx_pause(struct e1000_model *m, bool paused);

#endif
