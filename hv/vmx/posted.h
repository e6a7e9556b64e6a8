/* SPDX-License-Identifier: MIT */
/*
 * posted.h - the posted-interrupt descriptor and the three parties that
 * share it: the cores that raise interrupts in a guest (the sidecore), the
 * core that runs the guest's vCPU, and, where the hardware path is on, that
 * core's processor itself.
 *
 * Layout (SDM Vol. 3C §30.6, "Posted-Interrupt Processing"): a 64-byte,
 * 64-byte-aligned descriptor whose bits 255:0 are the posted-interrupt
 * requests (PIR, one bit per vector) and whose bit 256 is the outstanding
 * notification (ON). The processor uses nothing else; §30.6 leaves bits
 * 511:257 to software and other agents, and the fields kept there follow
 * the descriptor format of Intel's VT-d specification, so the same
 * descriptor could later serve posting by an IOMMU:
 *
 *   bit  256      ON    outstanding notification
 *   bit  257      SN    suppress notification
 *   bits 279:272  NV    notification vector
 *   bits 319:288  NDST  notification destination: the x2APIC ID, or the
 *                       xAPIC ID in bits 15:8 (bits 303:296)
 *   other bits    reserved, zero
 *
 * Posting (pi_post) sets a PIR bit and has its caller send the notification
 * vector to the vCPU's core only when ON goes from 0 to 1, so a batch of
 * interrupts costs one IPI. With "process posted interrupts" on, a processor in VMX non-root
 * operation that receives the notification vector merges PIR into the
 * guest's virtual IRR without a VM exit; pi_process() is the same merge
 * written in C, the model of that processor in the unit tests and the
 * software path otherwise (docs/vmx.md, "Posted interrupts").
 *
 * Memory ordering. pi_post() sets the PIR bit and then looks at ON and SN;
 * pi_collect() clears ON and then reads PIR. The PIR bit is released before
 * ON is set, so whoever clears ON afterwards (acquire) finds the bit. But
 * each side writes one location and then reads the other, and acquire and
 * release alone would let both read the old values (store buffering): a
 * request left in PIR with ON clear and no notification on its way. Every
 * access to a shared descriptor is therefore sequentially consistent. On x86
 * that is the lock-prefixed instructions (and XCHG) the code needs anyway,
 * each a full barrier: the same guarantee as the processor's own locked AND
 * on ON and its atomic read-and-clear of PIR.
 */
#ifndef SIDECORE_VMX_POSTED_H
#define SIDECORE_VMX_POSTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PI_VECTORS		256
#define PI_PIR_WORDS		(PI_VECTORS / 64)
#define PI_VIRR_WORDS		(PI_VECTORS / 32)	/* VIRR: 32 bits per APIC register */

/* The control word holds descriptor bits 319:256; bit n here is bit 256 + n there. */
#define PI_CONTROL_ON		(1ull << 0)	/* bit 256 */
#define PI_CONTROL_SN		(1ull << 1)	/* bit 257 */
#define PI_CONTROL_NV_SHIFT	16		/* bits 279:272 */
#define PI_CONTROL_NDST_SHIFT	32		/* bits 319:288 */
#define PI_NDST_XAPIC_SHIFT	8		/* xAPIC ID: NDST bits 15:8 */

struct pi_desc {
	uint64_t pir[PI_PIR_WORDS];	/* bits 255:0: vector n is bit n % 64 of pir[n / 64] */
	uint64_t control;		/* bits 319:256: ON, SN, NV, NDST */
	uint64_t reserved[3];		/* bits 511:320 */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct pi_desc) == 64, "the descriptor is 64 bytes");
_Static_assert(_Alignof(struct pi_desc) == 64, "the descriptor is 64-byte aligned");
_Static_assert(offsetof(struct pi_desc, pir) == 0, "PIR is bits 255:0");
_Static_assert(offsetof(struct pi_desc, control) * 8 == 256, "ON is bit 256");
_Static_assert(offsetof(struct pi_desc, control) * 8 + PI_CONTROL_NV_SHIFT == 272,
	       "NV is bits 279:272");
_Static_assert(offsetof(struct pi_desc, control) * 8 + PI_CONTROL_NDST_SHIFT == 288,
	       "NDST is bits 319:288");
_Static_assert(offsetof(struct pi_desc, reserved) * 8 == 320, "bits 511:320 are reserved");

/**
 * pi_desc_init() - an empty descriptor aimed at one core.
 * @desc: the descriptor, not yet visible to any poster
 * @notification_vector: the vector a post sends (NV); with the hardware path
 *	on, also the VMCS posted-interrupt notification vector
 * @destination_apic_id: the local APIC ID of the core that runs the vCPU
 * @x2apic: the host's APIC is in x2APIC mode; NDST then holds all 32 bits,
 *	otherwise the 8-bit xAPIC ID goes in NDST bits 15:8
 *
 * PIR, ON, SN and the reserved bits start at zero.
 *
 * Return: false, with @desc untouched, when @x2apic is false and
 * @destination_apic_id does not fit in 8 bits.
 */
bool pi_desc_init(struct pi_desc *desc, uint8_t notification_vector,
		  uint32_t destination_apic_id, bool x2apic);

/**
 * pi_post() - request a vector (any core, any number at once).
 * @desc: the vCPU's descriptor
 * @vector: the vector to raise in the guest
 *
 * Sets the vector's PIR bit with a locked OR, then sets ON unless ON or SN
 * is already set. The request is recorded in every case.
 *
 * Return: true when this call set ON (0 to 1) with SN clear: the caller must
 * send NV to NDST. False when a notification is already outstanding, or
 * notifications are suppressed.
 */
bool pi_post(struct pi_desc *desc, uint8_t vector);

/**
 * pi_collect() - take every request (the vCPU's core, or its processor).
 * @desc: the vCPU's descriptor
 * @pir: filled with the requests taken, in the layout of &struct pi_desc.pir
 *
 * Steps 3 and 5 of §30.6: clear ON, then read and clear PIR, each 64-bit
 * word in one atomic exchange so that no request is lost or taken twice.
 * For a virtual APIC kept in software, which has no VIRR of the processor's
 * shape.
 *
 * Return: true when any request was taken.
 */
bool pi_collect(struct pi_desc *desc, uint64_t pir[PI_PIR_WORDS]);

/**
 * pi_process() - what the processor does on receiving the notification vector.
 * @desc: the vCPU's descriptor
 * @virr: the virtual IRR, VIRR[32i+31:32i] in @virr[i] (the virtual-APIC
 *	page holds @virr[i] at offset 200H + 10H * i)
 * @rvi: the requesting virtual interrupt, bits 7:0 of the guest interrupt
 *	status
 *
 * §30.6 steps 3, 5 and 6: clear ON; OR PIR into VIRR and clear PIR; set RVI
 * to the larger of its old value and the highest vector taken, or leave it
 * when PIR was empty. Steps 1, 2 and 4 (acknowledging the interrupt and
 * writing EOI) belong to the local APIC; step 7, evaluating pending virtual
 * interrupts (§30.2.1), is left to the caller: VM entry performs it.
 *
 * Return: true when any vector was moved into @virr.
 */
bool pi_process(struct pi_desc *desc, uint32_t virr[PI_VIRR_WORDS], uint8_t *rvi);

/**
 * pi_suppress() - stop notifications (SN = 1); posts are still recorded.
 * @desc: the vCPU's descriptor
 *
 * For a vCPU that nothing should wake: its guest is stopped or being
 * restarted, or its core is in the hypervisor and will take the requests
 * itself (pi_unsuppress(), then pi_process()) before the next VM entry. A
 * halted vCPU whose core sleeps in HLT needs the notification to wake and
 * must not be suppressed.
 */
void pi_suppress(struct pi_desc *desc);

/**
 * pi_unsuppress() - allow notifications again (SN = 0).
 * @desc: the vCPU's descriptor
 *
 * Requests posted while SN was set sent no notification and did not set ON.
 *
 * Return: pi_pending() after SN is clear: true when requests are waiting,
 * which the caller must take (on the vCPU's own core) or notify.
 */
bool pi_unsuppress(struct pi_desc *desc);

/**
 * pi_pending() - whether anything is waiting.
 * @desc: the vCPU's descriptor
 *
 * Return: true when ON or any PIR bit is set.
 */
bool pi_pending(const struct pi_desc *desc);

#endif
