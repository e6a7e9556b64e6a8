/* SPDX-License-Identifier: MIT */
/*
 * ixgbe_model.h - a register-level model of the Intel 82599 for host tests.
 *
 * The model is a struct nic_io: register reads and writes with the side
 * effects the 82599 datasheet gives them, DMA memory out of an arena the
 * model owns (bus addresses above 4 GiB, so the high halves of base
 * registers matter), and a clock that only delay_us() and
 * ixgbe_model_advance() move.
 *
 * What it covers (section numbers of the 82599 datasheet):
 *  - reset (§4.6.3.2): CTRL.RST/LRST self-clear some time after they are
 *    set and every register returns to its reset value; EEC.ARD (with the
 *    MAC address in RAL0/RAH0) and RDRXCTL.DMAIDONE follow later;
 *  - link (§4.6.4): LINKS reports the link up, at the speed AUTOC selects,
 *    some time after auto-negotiation is restarted, and only while the
 *    cable (ixgbe_model_set_cable()) is in, the part is an SFP+ one
 *    (ixgbe_model_set_port()), AUTOC selects 10 Gb/s serial and AUTOC2
 *    SFI with no link-disable bit, a module answers on I2C and, for an
 *    optical module, the laser is on (SDP3 driven low) and a dual-rate
 *    one's rate select high (SDP5); AUTOC, AUTOC2 and ESDP start at NVM
 *    values that leave the link down (link disabled, laser off, as a
 *    warm reboot from Linux finds them);
 *  - the SFP+ module's EEPROM (identifier, compliance codes, cable
 *    technology, vendor OUI) on the I2C bus of I2CCTL, bit by bit;
 *  - the SW_FW_SYNC semaphore, with firmware that may hold the MAC's
 *    registers (ixgbe_model_set_fw_busy());
 *  - queues: RXDCTL/TXDCTL.ENABLE read back set only once the queue is
 *    enabled, which needs a valid ring (and DMATXCTL.TE for transmit);
 *  - transmit (§7.2): advanced context and data descriptors, gathered
 *    across buffers, TCP segmentation (§7.2.4), L4 and IPv4 header
 *    checksums (§7.2.5), padding, DD written back where RS asks; the
 *    frames go to a wire queue the test reads;
 *  - receive (§7.1, §7.10.3): the L2 filter (RAR, FCTRL), VMDq pools
 *    (MPSAR, PFVML2FLT, PFVFRE, PFVTCTL), one-buffer advanced descriptors
 *    with the write-back format of §7.1.6.2 and the checksum status the
 *    model computes itself; no descriptor means a drop counted in QPRDC
 *    (SRRCTL.DROP_EN) or MPC;
 *  - statistics registers, cleared on read;
 *  - a transmit queue hangs when the link goes down under it (TDH stays
 *    where it was even once the link is back) until the queue is disabled
 *    and enabled again or the NIC reset, as Intel's drivers find;
 *  - pause frames pass to the pools unless FCTRL.DPF, other MAC control
 *    frames only with FCTRL.PMCF.
 * Not modelled: interrupts, flow control, RSS, VLAN filters and stripping,
 * header split, the multicast table (FCTRL.MPE or PFVML2FLT.MPE accept all
 * multicast), DCB, queues 64-127.
 *
 * The model is stricter than the hardware where the datasheet says what a
 * driver must do: breaking such a rule (touching registers during reset,
 * enabling a transmit queue before DMATXCTL.TE, a malformed descriptor,
 * DMA outside the arena, a TSO frame whose IPv4 checksum field is not
 * zero, a frame shorter than IXGBE_TX_MIN_LEN, AUTOC written without
 * SW_FW_SYNC, RXEN set with the security receive path enabled, a queue
 * used with relaxed ordering on, ...) is counted and the first one kept in words,
 * for tests to assert on (ixgbe_model_errors()). Registers a driver must
 * program start at 0 after reset, not at the hardware's defaults.
 */
#ifndef SIDECORE_TESTS_MODELS_IXGBE_MODEL_H
#define SIDECORE_TESTS_MODELS_IXGBE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/net/nic.h"

/* Model time, in microseconds, that the slow parts take. */
#define IXGBE_MODEL_RESET_US	2000	/* CTRL.RST set to clear */
#define IXGBE_MODEL_DMAINIT_US	12000	/* after the reset: RDRXCTL.DMAIDONE */
#define IXGBE_MODEL_EEPROM_US	15000	/* after the reset: EEC.ARD */
#define IXGBE_MODEL_QUEUE_US	20	/* RXDCTL/TXDCTL.ENABLE write to read-back */
#define IXGBE_MODEL_LINK_US	5000	/* auto-negotiation restart (or cable in) to link up */

#define IXGBE_MODEL_QUEUES	64	/* queue registers modelled: 0-63 */

/* The longest frame the model puts on its wire, and gathers for one TSO. */
#define IXGBE_MODEL_WIRE_MAX	16384
#define IXGBE_MODEL_TSO_MAX	262144

/* A frame the model transmitted, as it would leave the port (FCS not included). */
struct ixgbe_model_frame {
	uint8_t data[IXGBE_MODEL_WIRE_MAX];
	uint32_t len;
	bool fcs;		/* the NIC would append an FCS (IFCS and HLREG0.TXCRCEN) */
	unsigned int queue;	/* hardware transmit queue it came from */
};

/* Counts of the model's own, beside the registers. */
struct ixgbe_model_stats {
	uint64_t rx_filtered;	/* not for this port, or for no enabled pool */
	uint64_t rx_not_ready;	/* link down, receiver off or in reset */
	uint64_t rx_no_desc;	/* a queue had too few descriptors */
	uint64_t rx_written;	/* frames written to a queue (a replicated one per queue) */
	uint64_t tx_frames;	/* frames put on the wire, TSO segments each */
	uint64_t tx_descs;	/* descriptors processed */
	uint64_t tdt_writes[IXGBE_MODEL_QUEUES];	/* doorbells, per hardware queue */
};

/* Ways to make the next receive write-back lie, for robustness tests. */
struct ixgbe_model_faults {
	bool rx_len_set;	/* report rx_len as the length of the next frame */
	uint32_t rx_len;
	uint32_t rx_errors;	/* OR these error bits into the next write-back */
};

/* What sits in the SFP+ cage. */
enum ixgbe_model_module {
	IXGBE_MODULE_NONE,
	IXGBE_MODULE_DAC,		/* passive direct-attach copper */
	IXGBE_MODULE_SR_INTEL,		/* Intel dual-rate 1G/10G SR optics */
	IXGBE_MODULE_SR_OTHER,		/* a third party's 10GBASE-SR */
	IXGBE_MODULE_LR,		/* 10GBASE-LR */
};

struct ixgbe_model;

/**
 * ixgbe_model_create() - a powered-up 82599 that has not been reset yet.
 * @mac: the address its EEPROM holds
 * @arena_bytes: DMA memory it hands out
 *
 * Return: the model, or NULL when out of memory.
 */
struct ixgbe_model *ixgbe_model_create(const uint8_t mac[ETH_ALEN], size_t arena_bytes);

/**
 * ixgbe_model_destroy() - free a model, its arena and its wire queue.
 * @m: the model, or NULL
 */
void ixgbe_model_destroy(struct ixgbe_model *m);

/**
 * ixgbe_model_finish() - destroy a model, keeping what a test asserts on.
 * @m: the model
 * @first: gets the first broken rule in words ("" if none)
 * @size: room at @first
 *
 * Return: how many rules were broken.
 */
unsigned int ixgbe_model_finish(struct ixgbe_model *m, char *first, size_t size);

/**
 * ixgbe_model_io() - the bus a driver reaches the model through.
 * @m: the model
 *
 * Return: read32/write32/dma_alloc/delay_us with @m as their context.
 */
struct nic_io ixgbe_model_io(struct ixgbe_model *m);

/**
 * ixgbe_model_peek() - a register's value, without a read's side effects.
 * @m: the model
 * @offset: the register
 *
 * Return: its value (0 for the statistics the model keeps wider).
 */
uint32_t ixgbe_model_peek(struct ixgbe_model *m, uint32_t offset);

/**
 * ixgbe_model_dma() - the model's memory behind a bus address.
 * @m: the model
 * @bus: a bus address that dma_alloc() handed out
 * @len: bytes wanted there
 *
 * Return: a pointer, or NULL when [@bus, @bus + @len) leaves the arena.
 */
void *ixgbe_model_dma(struct ixgbe_model *m, uint64_t bus, size_t len);

#define IXGBE_MODEL_DMA_UNKNOWN	(-2)	/* not from dma_alloc(), or past its records */

/**
 * ixgbe_model_dma_queue() - the queue pair an allocation was made for.
 * @m: the model
 * @bus: a bus address inside memory dma_alloc() handed out
 *
 * Return: the queue argument of that dma_alloc() call (NIC_DMA_SHARED for
 * the NIC as a whole), or IXGBE_MODEL_DMA_UNKNOWN.
 */
int ixgbe_model_dma_queue(const struct ixgbe_model *m, uint64_t bus);

/**
 * ixgbe_model_advance() - let model time pass.
 * @m: the model
 * @us: microseconds
 */
void ixgbe_model_advance(struct ixgbe_model *m, unsigned int us);

/**
 * ixgbe_model_set_cable() - plug or pull the cable.
 * @m: the model
 * @in: true: the link comes up IXGBE_MODEL_LINK_US later (once
 *      auto-negotiation was started); false: down at once
 */
void ixgbe_model_set_cable(struct ixgbe_model *m, bool in);

/**
 * ixgbe_model_set_port() - the part and the module in its cage.
 * @m: the model
 * @device: its PCI device ID, which decides the media (SFP+ or not)
 * @module: the module, as the EEPROM on its I2C bus describes it
 *
 * Takes effect at the next reset; a new model is an 82599ES (0x10fb) with
 * a direct-attach cable.
 */
void ixgbe_model_set_port(struct ixgbe_model *m, uint16_t device, enum ixgbe_model_module module);

/**
 * ixgbe_model_set_link_misses() - auto-negotiation restarts that fail.
 * @m: the model
 * @misses: how many of the next restarts never bring the link up
 */
void ixgbe_model_set_link_misses(struct ixgbe_model *m, unsigned int misses);

/**
 * ixgbe_model_set_fw_busy() - management firmware holds the MAC's registers.
 * @m: the model
 * @us: for this long, SW_FW_SYNC's firmware bit for them is set
 */
void ixgbe_model_set_fw_busy(struct ixgbe_model *m, unsigned int us);

/**
 * ixgbe_model_set_tx_paused() - stop or resume transmit processing.
 * @m: the model
 * @paused: while true, TDT writes are remembered but nothing is sent; on
 *          false the queues are processed at once
 */
void ixgbe_model_set_tx_paused(struct ixgbe_model *m, bool paused);

/**
 * ixgbe_model_step() - process every transmit queue up to its TDT.
 * @m: the model
 *
 * The model also does this on every TDT write and when the link comes up,
 * unless paused.
 */
void ixgbe_model_step(struct ixgbe_model *m);

/**
 * ixgbe_model_receive() - a frame arrives from the wire.
 * @m: the model
 * @frame: the frame from destination MAC to payload, without FCS
 * @len: its length
 *
 * Filters and steers it (§7.1.1, §7.10.3.2) and writes it to the next
 * descriptors of each queue it is for, or counts it dropped.
 *
 * Return: how many queues it was written to.
 */
unsigned int ixgbe_model_receive(struct ixgbe_model *m, const void *frame, uint32_t len);

/**
 * ixgbe_model_wire_count() - frames on the wire not yet taken.
 * @m: the model
 *
 * Return: their number.
 */
unsigned int ixgbe_model_wire_count(const struct ixgbe_model *m);

/**
 * ixgbe_model_wire_pop() - take the oldest frame off the wire.
 * @m: the model
 * @out: filled in
 *
 * Return: false when the wire is empty.
 */
bool ixgbe_model_wire_pop(struct ixgbe_model *m, struct ixgbe_model_frame *out);

/**
 * ixgbe_model_set_faults() - make the next receive write-back lie.
 * @m: the model
 * @faults: what to change; each fault applies to one frame and is then cleared
 */
void ixgbe_model_set_faults(struct ixgbe_model *m, const struct ixgbe_model_faults *faults);

/**
 * ixgbe_model_stats() - the model's own counters.
 * @m: the model
 *
 * Return: them, since creation.
 */
struct ixgbe_model_stats ixgbe_model_stats(const struct ixgbe_model *m);

/**
 * ixgbe_model_errors() - how often a driver broke a rule of the datasheet.
 * @m: the model
 * @first: if not NULL, set to the first broken rule in words ("" if none)
 *
 * Return: the count.
 */
unsigned int ixgbe_model_errors(const struct ixgbe_model *m, const char **first);

/**
 * ixgbe_model_last_error() - the rule a driver broke last.
 * @m: the model
 *
 * Return: it in words ("" if none).
 */
const char *ixgbe_model_last_error(const struct ixgbe_model *m);

#endif
