/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci.c - a modern virtio PCI function (virtio 1.1 §4.1): identity and
 * capability list in config space, the virtio structures and MSI-X in BAR 0,
 * the device status state machine, and MSI-X masking (PCI 3.0 §6.8).
 *
 * BAR 0 (16 KiB), one concern per 4 KiB page where it matters:
 *   0x0000 common configuration     0x0800 ISR status
 *   0x1000 device-specific config   0x2000 notifications, 4 bytes per queue
 *   0x3000 MSI-X table              0x3800 MSI-X pending bits
 * PCI 3.0 §6.8.2 forbids other registers in a 4 KiB range holding the MSI-X
 * table or PBA, so those two keep the last page to themselves.
 */
#include <stddef.h>
#include <string.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_pci.h>

#include "lib/log.h"
#include "virtio/virtio_pci.h"

/* PCI identity of a non-transitional device (virtio 1.1 §4.1.2). */
#define VIRTIO_PCI_VENDOR	0x1af4
#define VIRTIO_PCI_DEVICE_BASE	0x1040	/* + virtio device ID, up to 0x107f */
#define VIRTIO_PCI_DEVICE_ID_MAX 0x3f
#define VIRTIO_PCI_REVISION	1	/* §4.1.2.1: 1 or more */
/* PCI Code and ID Assignment spec: class 02h/00h Ethernet; class FFh fits no other. */
#define PCI_CLASS_CODE_ETHERNET	0x020000
#define PCI_CLASS_CODE_OTHER	0xff0000

#define BAR_COMMON		0x0000
#define BAR_ISR			0x0800
#define BAR_DEVICE		0x1000
#define BAR_NOTIFY		0x2000
#define BAR_MSIX_TABLE		0x3000
#define BAR_MSIX_PBA		0x3800
#define COMMON_SIZE		sizeof(struct virtio_pci_common_cfg)
/* §4.1.4.4: an even power of two; each queue gets its own 32-bit slot. */
#define NOTIFY_MULTIPLIER	4

_Static_assert(VIRTIO_PCI_VECTORS_MAX * PCI_MSIX_ENTRY_SIZE <= BAR_MSIX_PBA - BAR_MSIX_TABLE,
	       "MSI-X table overlaps the PBA");
_Static_assert(VIRTIO_PCI_QUEUES_MAX * NOTIFY_MULTIPLIER <= BAR_MSIX_TABLE - BAR_NOTIFY,
	       "notification slots overflow their page");
_Static_assert(BAR_DEVICE + VIRTIO_PCI_CONFIG_MAX <= BAR_NOTIFY,
	       "device config overflows its page");

/*
 * Capabilities, dword aligned after the type 0 header (PCI 3.0 §6.7). The
 * device-specific one is optional (§4.1.4.6), so it comes last.
 */
#define CAP_COMMON		0x40
#define CAP_NOTIFY		(CAP_COMMON + sizeof(struct virtio_pci_cap))
#define CAP_ISR			(CAP_NOTIFY + sizeof(struct virtio_pci_notify_cap))
#define CAP_PCI_CFG		(CAP_ISR + sizeof(struct virtio_pci_cap))
#define CAP_MSIX		(CAP_PCI_CFG + sizeof(struct virtio_pci_cfg_cap))
#define CAP_DEVICE		(CAP_MSIX + PCI_CAP_MSIX_SIZEOF)
#define WINDOW_DATA		(CAP_PCI_CFG + offsetof(struct virtio_pci_cfg_cap, pci_cfg_data))
#define MSIX_FLAGS		(CAP_MSIX + PCI_MSIX_FLAGS)

_Static_assert(CAP_DEVICE + sizeof(struct virtio_pci_cap) <= PCI_CONFIG_SIZE,
	       "capabilities overflow config space");

/* §4.1.4.5: bit 0 a used buffer notification, bit 1 a config change. */
#define VIRTIO_PCI_ISR_QUEUE	0x1

#define DRIVER_STATUS_BITS	(VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER | \
				 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK | \
				 VIRTIO_CONFIG_S_FAILED)

static uint32_t config_get(const struct virtio_pci *fn, unsigned int offset, unsigned int size)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint32_t)fn->pci.config[offset + i] << (8 * i);
	return v;
}

static void bytes_put(uint8_t *p, unsigned int offset, unsigned int size, uint32_t v)
{
	for (unsigned int i = 0; i < size; i++)
		p[offset + i] = (uint8_t)(v >> (8 * i));
}

static bool overlaps(unsigned int offset, unsigned int size, unsigned int start,
		     unsigned int length)
{
	return offset < start + length && start < offset + size;
}

/* [offset, offset + size) lies inside [start, start + length). */
static bool inside(uint32_t offset, unsigned int size, uint32_t start, uint32_t length)
{
	return offset >= start && offset - start < length && size <= length - (offset - start);
}

static unsigned int vector_count(const struct virtio_pci *fn)
{
	return fn->ops->num_queues + 1u;
}

/* --- MSI-X (PCI 3.0 §6.8.2) ------------------------------------------------- */

static bool msix_enabled(const struct virtio_pci *fn)
{
	return config_get(fn, MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_ENABLE;
}

static bool msix_masked(const struct virtio_pci *fn, unsigned int vector)
{
	return (config_get(fn, MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_MASKALL) ||
	       (fn->msix[vector].control & PCI_MSIX_ENTRY_CTRL_MASKBIT);
}

static void msix_send(struct virtio_pci *fn, unsigned int vector)
{
	const struct virtio_pci_msix_entry *e = &fn->msix[vector];

	fn->send_msi(fn->msi_ctx, (uint64_t)e->address_hi << 32 | e->address_lo, e->data);
}

/* A masked vector's message waits in the PBA until it is unmasked (PCI 3.0 §6.8.2.9). */
static void msix_signal(struct virtio_pci *fn, unsigned int vector)
{
	if (vector >= vector_count(fn))
		return;		/* VIRTIO_MSI_NO_VECTOR: the driver wants none */
	if (msix_masked(fn, vector))
		fn->msix_pending[vector / 64] |= 1ull << (vector % 64);
	else
		msix_send(fn, vector);
}

static void msix_deliver_pending(struct virtio_pci *fn)
{
	if (!msix_enabled(fn))
		return;
	for (unsigned int v = 0; v < vector_count(fn); v++) {
		uint64_t bit = 1ull << (v % 64);

		if ((fn->msix_pending[v / 64] & bit) && !msix_masked(fn, v)) {
			fn->msix_pending[v / 64] &= ~bit;
			msix_send(fn, v);
		}
	}
}

static uint32_t *msix_field(struct virtio_pci *fn, uint32_t offset)
{
	struct virtio_pci_msix_entry *e = &fn->msix[offset / PCI_MSIX_ENTRY_SIZE];

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

/* Table entries take dword accesses only (PCI 3.0 §6.8.2: others are undefined). */
static void msix_table_write(struct virtio_pci *fn, uint32_t offset, uint32_t value)
{
	switch (offset % PCI_MSIX_ENTRY_SIZE) {
	case PCI_MSIX_ENTRY_LOWER_ADDR:
		value &= ~3u;	/* PCI 3.0 §6.8.2.6: dword aligned */
		break;
	case PCI_MSIX_ENTRY_VECTOR_CTRL:
		value &= PCI_MSIX_ENTRY_CTRL_MASKBIT;	/* the rest is reserved */
		break;
	}
	*msix_field(fn, offset) = value;
	if (offset % PCI_MSIX_ENTRY_SIZE == PCI_MSIX_ENTRY_VECTOR_CTRL)
		msix_deliver_pending(fn);
}

static uint16_t msix_vector_checked(const struct virtio_pci *fn, uint16_t vector)
{
	/* §4.1.5.1.2: an unmappable vector reads back as NO_VECTOR. */
	return vector < vector_count(fn) ? vector : VIRTIO_MSI_NO_VECTOR;
}

/* Tell the driver: by MSI-X if enabled, else only in the ISR (no INTx pin). */
static void driver_notify(struct virtio_pci *fn, uint8_t isr_bit, uint16_t vector)
{
	if (msix_enabled(fn))
		msix_signal(fn, vector);
	else
		fn->isr |= isr_bit;
}

/* --- device status (§2.1, §3.1.1) ------------------------------------------ */

static void device_reset(struct virtio_pci *fn)
{
	fn->driver_features = 0;
	fn->device_feature_select = 0;
	fn->driver_feature_select = 0;
	fn->msix_config = VIRTIO_MSI_NO_VECTOR;
	fn->queue_select = 0;
	fn->status = 0;
	fn->features_refused = false;
	fn->isr = 0;
	for (unsigned int i = 0; i < fn->ops->num_queues; i++) {
		struct virtio_pci_queue *q = &fn->queue[i];

		memset(q, 0, sizeof(*q));
		q->size = fn->ops->queue_size_max;
		q->msix_vector = VIRTIO_MSI_NO_VECTOR;
	}
}

/* §3.1.1 step 5: a subset of what was offered, and modern (§6.1). */
static bool features_acceptable(const struct virtio_pci *fn)
{
	return !(fn->driver_features & ~fn->offered) &&
	       (fn->driver_features & 1ull << VIRTIO_F_VERSION_1);
}

static void status_write(struct virtio_pci *fn, uint8_t value)
{
	uint8_t old = fn->status & DRIVER_STATUS_BITS, added;

	if (!value) {
		device_reset(fn);
		if (fn->ops->reset)
			fn->ops->reset(fn->ctx);
		return;
	}
	value &= DRIVER_STATUS_BITS;	/* DEVICE_NEEDS_RESET is the device's */
	if (old & ~value)
		return;		/* §2.1.1: only a reset clears bits */
	added = value & ~old;
	/*
	 * §3.1.1 step 6: a refused feature set leaves the device unusable
	 * until a reset; new features and another FEATURES_OK do not revive it.
	 */
	if ((added & VIRTIO_CONFIG_S_FEATURES_OK) &&
	    (!(value & VIRTIO_CONFIG_S_DRIVER) || fn->features_refused ||
	     !features_acceptable(fn))) {
		value &= ~VIRTIO_CONFIG_S_FEATURES_OK;	/* the driver reads it back */
		fn->features_refused = true;
	}
	/*
	 * §3.1.1 and §2.1.2: DRIVER_OK takes accepted features, and a device
	 * that needs a reset does not go live. The spec's way for a driver
	 * that sets it anyway is the device's error state: DRIVER_OK stays
	 * clear and DEVICE_NEEDS_RESET is set until the driver resets.
	 */
	if ((added & VIRTIO_CONFIG_S_DRIVER_OK) &&
	    (!(value & VIRTIO_CONFIG_S_FEATURES_OK) ||
	     (fn->status & VIRTIO_CONFIG_S_NEEDS_RESET))) {
		value &= ~VIRTIO_CONFIG_S_DRIVER_OK;
		fn->status = value | (fn->status & VIRTIO_CONFIG_S_NEEDS_RESET);
		if (!(fn->status & VIRTIO_CONFIG_S_NEEDS_RESET))
			log_msg("virtio-pci %s: DRIVER_OK without accepted features, "
				"device needs reset", fn->name);
		virtio_pci_mark_needs_reset(fn);
		return;
	}
	fn->status = value | (fn->status & VIRTIO_CONFIG_S_NEEDS_RESET);
	added = value & ~old;
	if ((added & VIRTIO_CONFIG_S_DRIVER_OK) && fn->ops->driver_ok)
		fn->ops->driver_ok(fn->ctx, fn->driver_features);
}

/* --- common configuration (§4.1.4.3) --------------------------------------- */

static unsigned int common_field_size(uint32_t offset)
{
	switch (offset) {
	case VIRTIO_PCI_COMMON_DFSELECT:
	case VIRTIO_PCI_COMMON_DF:
	case VIRTIO_PCI_COMMON_GFSELECT:
	case VIRTIO_PCI_COMMON_GF:
	case VIRTIO_PCI_COMMON_Q_DESCLO:
	case VIRTIO_PCI_COMMON_Q_DESCHI:
	case VIRTIO_PCI_COMMON_Q_AVAILLO:
	case VIRTIO_PCI_COMMON_Q_AVAILHI:
	case VIRTIO_PCI_COMMON_Q_USEDLO:
	case VIRTIO_PCI_COMMON_Q_USEDHI:
		return 4;
	case VIRTIO_PCI_COMMON_MSIX:
	case VIRTIO_PCI_COMMON_NUMQ:
	case VIRTIO_PCI_COMMON_Q_SELECT:
	case VIRTIO_PCI_COMMON_Q_SIZE:
	case VIRTIO_PCI_COMMON_Q_MSIX:
	case VIRTIO_PCI_COMMON_Q_ENABLE:
	case VIRTIO_PCI_COMMON_Q_NOFF:
		return 2;
	case VIRTIO_PCI_COMMON_STATUS:
	case VIRTIO_PCI_COMMON_CFGGENERATION:
		return 1;
	default:
		return 0;
	}
}

static struct virtio_pci_queue *queue_selected(struct virtio_pci *fn)
{
	return fn->queue_select < fn->ops->num_queues ? &fn->queue[fn->queue_select] : NULL;
}

/* The ring address a queue_{desc,driver,device}_{lo,hi} field holds half of. */
static uint64_t *queue_ring_address(struct virtio_pci_queue *q, uint32_t offset, bool *high)
{
	*high = offset == VIRTIO_PCI_COMMON_Q_DESCHI || offset == VIRTIO_PCI_COMMON_Q_AVAILHI ||
		offset == VIRTIO_PCI_COMMON_Q_USEDHI;
	switch (offset) {
	case VIRTIO_PCI_COMMON_Q_DESCLO:
	case VIRTIO_PCI_COMMON_Q_DESCHI:
		return &q->desc;
	case VIRTIO_PCI_COMMON_Q_AVAILLO:
	case VIRTIO_PCI_COMMON_Q_AVAILHI:
		return &q->driver;
	default:
		return &q->device;
	}
}

/* Feature words 0 and 1 exist; the device offers nothing beyond bit 63. */
static uint32_t feature_word(uint64_t features, uint32_t select)
{
	return select < 2 ? (uint32_t)(features >> (32 * select)) : 0;
}

static uint32_t common_read(struct virtio_pci *fn, uint32_t offset)
{
	struct virtio_pci_queue *q = queue_selected(fn);
	bool high;

	switch (offset) {
	case VIRTIO_PCI_COMMON_DFSELECT:
		return fn->device_feature_select;
	case VIRTIO_PCI_COMMON_DF:
		return feature_word(fn->offered, fn->device_feature_select);
	case VIRTIO_PCI_COMMON_GFSELECT:
		return fn->driver_feature_select;
	case VIRTIO_PCI_COMMON_GF:
		return feature_word(fn->driver_features, fn->driver_feature_select);
	case VIRTIO_PCI_COMMON_MSIX:
		return fn->msix_config;
	case VIRTIO_PCI_COMMON_NUMQ:
		return fn->ops->num_queues;
	case VIRTIO_PCI_COMMON_STATUS:
		return fn->status;
	case VIRTIO_PCI_COMMON_CFGGENERATION:
		return fn->config_generation;
	case VIRTIO_PCI_COMMON_Q_SELECT:
		return fn->queue_select;
	case VIRTIO_PCI_COMMON_Q_MSIX:
		return q ? q->msix_vector : VIRTIO_MSI_NO_VECTOR;
	}
	if (!q)
		return 0;	/* queue_size 0: no such queue */
	switch (offset) {
	case VIRTIO_PCI_COMMON_Q_SIZE:
		return q->size;
	case VIRTIO_PCI_COMMON_Q_ENABLE:
		return q->enabled;
	case VIRTIO_PCI_COMMON_Q_NOFF:
		return fn->queue_select;	/* slot = queue index * multiplier */
	default: {
		uint64_t address = *queue_ring_address(q, offset, &high);

		return (uint32_t)(high ? address >> 32 : address);
	}
	}
}

/* §4.1.4.3.1: bits not in device_feature are invalid; kept, they void FEATURES_OK. */
static void driver_features_write(struct virtio_pci *fn, uint32_t value)
{
	unsigned int shift = 32 * fn->driver_feature_select;

	if ((fn->status & VIRTIO_CONFIG_S_FEATURES_OK) || fn->driver_feature_select >= 2)
		return;		/* frozen once accepted; nothing offered up there */
	fn->driver_features = (fn->driver_features & ~(0xffffffffull << shift)) |
			      (uint64_t)value << shift;
}

static void queue_enable(struct virtio_pci *fn, struct virtio_pci_queue *q)
{
	unsigned int index = (unsigned int)(q - fn->queue);

	if (q->enabled || !(fn->status & VIRTIO_CONFIG_S_FEATURES_OK))
		return;		/* the rings' format depends on the features */
	/* §2.6: descriptor table 16-byte, driver ring 2-byte, device ring 4-byte aligned. */
	if (q->desc % 16 || q->driver % 2 || q->device % 4 ||
	    (fn->ops->queue_enable &&
	     !fn->ops->queue_enable(fn->ctx, index, q->size, q->desc, q->driver, q->device))) {
		log_msg("virtio-pci %s: device %04x: queue %u refused (rings 0x%llx 0x%llx 0x%llx), "
			"device needs reset", fn->name, VIRTIO_PCI_DEVICE_BASE + fn->ops->device_id, index,
			(unsigned long long)q->desc, (unsigned long long)q->driver,
			(unsigned long long)q->device);
		virtio_pci_mark_needs_reset(fn);
		return;
	}
	q->enabled = true;
}

static void common_write(struct virtio_pci *fn, uint32_t offset, uint32_t value)
{
	struct virtio_pci_queue *q = queue_selected(fn);
	bool high;
	uint64_t *address;

	switch (offset) {
	case VIRTIO_PCI_COMMON_DFSELECT:
		fn->device_feature_select = value;
		return;
	case VIRTIO_PCI_COMMON_GFSELECT:
		fn->driver_feature_select = value;
		return;
	case VIRTIO_PCI_COMMON_GF:
		driver_features_write(fn, value);
		return;
	case VIRTIO_PCI_COMMON_MSIX:
		fn->msix_config = msix_vector_checked(fn, (uint16_t)value);
		return;
	case VIRTIO_PCI_COMMON_STATUS:
		status_write(fn, (uint8_t)value);
		return;
	case VIRTIO_PCI_COMMON_Q_SELECT:
		fn->queue_select = (uint16_t)value;
		return;
	case VIRTIO_PCI_COMMON_NUMQ:
	case VIRTIO_PCI_COMMON_DF:
	case VIRTIO_PCI_COMMON_CFGGENERATION:
	case VIRTIO_PCI_COMMON_Q_NOFF:
		return;		/* read-only */
	}
	if (!q)
		return;
	switch (offset) {
	case VIRTIO_PCI_COMMON_Q_MSIX:
		q->msix_vector = msix_vector_checked(fn, (uint16_t)value);
		return;
	case VIRTIO_PCI_COMMON_Q_ENABLE:
		if (value == 1)	/* §4.1.4.3.2: the driver never writes 0 */
			queue_enable(fn, q);
		return;
	}
	if (q->enabled)
		return;		/* a live ring stays where it is */
	if (offset == VIRTIO_PCI_COMMON_Q_SIZE) {
		/* §2.6: a power of two, at most what the device offers. */
		if (value && !(value & (value - 1)) && value <= fn->ops->queue_size_max)
			q->size = (uint16_t)value;
		return;
	}
	address = queue_ring_address(q, offset, &high);
	if (high)
		*address = (*address & 0xffffffffull) | (uint64_t)value << 32;
	else
		*address = (*address & ~0xffffffffull) | value;
}

/* --- BAR 0 ------------------------------------------------------------------ */

/* One access of size 1, 2 or 4, naturally aligned, inside the BAR. */
static uint32_t bar_read(struct virtio_pci *fn, uint32_t offset, unsigned int size, bool peek)
{
	uint32_t vectors = vector_count(fn);

	if (inside(offset, size, BAR_COMMON, COMMON_SIZE))
		return common_field_size(offset - BAR_COMMON) == size ?
		       common_read(fn, offset - BAR_COMMON) : 0;
	if (inside(offset, size, BAR_ISR, 1)) {
		uint8_t isr = fn->isr;

		if (!peek)
			fn->isr = 0;	/* §4.1.4.5: reading acknowledges */
		return isr;
	}
	if (inside(offset, size, BAR_DEVICE, fn->ops->config_size))
		return fn->ops->config_read ?
		       fn->ops->config_read(fn->ctx, offset - BAR_DEVICE, size) : 0;
	if (size != 4)
		return 0;	/* notifications read nothing; MSI-X is dwords only */
	if (inside(offset, size, BAR_MSIX_TABLE, vectors * PCI_MSIX_ENTRY_SIZE))
		return *msix_field(fn, offset - BAR_MSIX_TABLE);
	if (inside(offset, size, BAR_MSIX_PBA, (vectors + 63) / 64 * 8)) {
		uint32_t bit = (offset - BAR_MSIX_PBA) * 8;

		return (uint32_t)(fn->msix_pending[bit / 64] >> (bit % 64));
	}
	return 0;
}

static int bar_write(struct virtio_pci *fn, uint32_t offset, unsigned int size, uint32_t value)
{
	uint32_t vectors = vector_count(fn);

	if (inside(offset, size, BAR_COMMON, COMMON_SIZE)) {
		if (common_field_size(offset - BAR_COMMON) == size)
			common_write(fn, offset - BAR_COMMON, value);
	} else if (inside(offset, size, BAR_DEVICE, fn->ops->config_size)) {
		if (fn->ops->config_write)
			fn->ops->config_write(fn->ctx, offset - BAR_DEVICE, size, value);
	} else if (inside(offset, size, BAR_NOTIFY, fn->ops->num_queues * NOTIFY_MULTIPLIER)) {
		/*
		 * §4.1.5.2: the slot names the queue (queue_notify_off is its
		 * index). Sidecores poll and the rings ask for no kicks, so a
		 * kick is only counted and handed back to the caller.
		 */
		if ((offset - BAR_NOTIFY) % NOTIFY_MULTIPLIER == 0) {
			fn->kicks++;
			return (int)((offset - BAR_NOTIFY) / NOTIFY_MULTIPLIER);
		}
	} else if (size == 4 && inside(offset, size, BAR_MSIX_TABLE,
					vectors * PCI_MSIX_ENTRY_SIZE)) {
		msix_table_write(fn, offset - BAR_MSIX_TABLE, value);
	}
	return VIRTIO_PCI_NO_NOTIFY;	/* ISR and PBA are read-only */
}

static bool bar_access_valid(uint64_t offset, unsigned int size)
{
	return (size == 1 || size == 2 || size == 4 || size == 8) && offset % size == 0 &&
	       offset < VIRTIO_PCI_BAR_SIZE && size <= VIRTIO_PCI_BAR_SIZE - offset;
}

/* --- the PCI configuration access capability (§4.1.4.8) -------------------- */

/* The BAR 0 access the window describes, if it is one the spec allows. */
static bool window_target(const struct virtio_pci *fn, uint32_t *offset, unsigned int *length)
{
	struct virtio_pci_cfg_cap cap;

	memcpy(&cap, fn->pci.config + CAP_PCI_CFG, sizeof(cap));
	*offset = cap.cap.offset;
	*length = cap.cap.length;
	return cap.cap.bar == 0 && (*length == 1 || *length == 2 || *length == 4) &&
	       bar_access_valid(*offset, *length);
}

/*
 * pci.c serves config reads straight from the register bytes, with no read
 * hook, so pci_cfg_data is kept showing what a read through the window
 * would return: refreshed after anything that may change it. Such a read
 * therefore cannot clear the ISR; nothing but reads of the ISR itself does.
 */
static void window_refresh(struct virtio_pci *fn)
{
	uint32_t offset, value = 0;
	unsigned int length;

	if (window_target(fn, &offset, &length))
		value = bar_read(fn, offset, length, true);
	bytes_put(fn->pci.config, WINDOW_DATA, 4, value);
}

static void window_write(struct virtio_pci *fn)
{
	uint32_t offset;
	unsigned int length;

	if (window_target(fn, &offset, &length))
		bar_write(fn, offset, length, config_get(fn, WINDOW_DATA, length));
}

static void config_written(struct pci_device *dev, unsigned int offset, unsigned int size)
{
	struct virtio_pci *fn = dev->ctx;

	if (overlaps(offset, size, MSIX_FLAGS, 2))
		msix_deliver_pending(fn);	/* enabled or unmasked: PCI 3.0 §6.8.2.3 */
	if (overlaps(offset, size, WINDOW_DATA, 4))
		window_write(fn);
	window_refresh(fn);
}

/* --- identity and capabilities ---------------------------------------------- */

static void cap_add_virtio(struct virtio_pci *fn, unsigned int at, uint8_t cap_len,
			   uint8_t type, uint32_t offset, uint32_t length)
{
	struct virtio_pci_cap cap = {
		.cap_vndr = PCI_CAP_ID_VNDR,
		.cap_len = cap_len,
		.cfg_type = type,
		.bar = 0,
		.offset = offset,
		.length = length,
	};

	memcpy(fn->pci.config + at, &cap, sizeof(cap));
}

static void caps_build(struct virtio_pci *fn)
{
	uint8_t *config = fn->pci.config;
	unsigned int vectors = vector_count(fn);

	config[PCI_CAPABILITY_LIST] = CAP_COMMON;
	bytes_put(config, PCI_STATUS, 2, PCI_STATUS_CAP_LIST);

	cap_add_virtio(fn, CAP_COMMON, sizeof(struct virtio_pci_cap), VIRTIO_PCI_CAP_COMMON_CFG,
		       BAR_COMMON, COMMON_SIZE);
	config[CAP_COMMON + PCI_CAP_LIST_NEXT] = CAP_NOTIFY;

	/* §4.1.4.4.1: covers queue_notify_off * multiplier + 2 for every queue. */
	cap_add_virtio(fn, CAP_NOTIFY, sizeof(struct virtio_pci_notify_cap),
		       VIRTIO_PCI_CAP_NOTIFY_CFG, BAR_NOTIFY,
		       fn->ops->num_queues * NOTIFY_MULTIPLIER);
	bytes_put(config, CAP_NOTIFY + VIRTIO_PCI_NOTIFY_CAP_MULT, 4, NOTIFY_MULTIPLIER);
	config[CAP_NOTIFY + PCI_CAP_LIST_NEXT] = CAP_ISR;

	cap_add_virtio(fn, CAP_ISR, sizeof(struct virtio_pci_cap), VIRTIO_PCI_CAP_ISR_CFG,
		       BAR_ISR, 1);
	config[CAP_ISR + PCI_CAP_LIST_NEXT] = CAP_PCI_CFG;

	/* §4.1.4.8: bar, offset, length and data are the driver's to write. */
	cap_add_virtio(fn, CAP_PCI_CFG, sizeof(struct virtio_pci_cfg_cap), VIRTIO_PCI_CAP_PCI_CFG,
		       0, 0);
	config[CAP_PCI_CFG + PCI_CAP_LIST_NEXT] = CAP_MSIX;
	bytes_put(fn->pci.write_mask, CAP_PCI_CFG + VIRTIO_PCI_CAP_BAR, 1, 0xff);
	bytes_put(fn->pci.write_mask, CAP_PCI_CFG + VIRTIO_PCI_CAP_OFFSET, 4, 0xffffffff);
	bytes_put(fn->pci.write_mask, CAP_PCI_CFG + VIRTIO_PCI_CAP_LENGTH, 4, 0xffffffff);
	bytes_put(fn->pci.write_mask, WINDOW_DATA, 4, 0xffffffff);

	/* PCI 3.0 §6.8.2.3: Table Size is N - 1; enable and function mask are writable. */
	config[CAP_MSIX + PCI_CAP_LIST_ID] = PCI_CAP_ID_MSIX;
	bytes_put(config, MSIX_FLAGS, 2, vectors - 1);
	bytes_put(fn->pci.write_mask, MSIX_FLAGS, 2,
		  PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	bytes_put(config, CAP_MSIX + PCI_MSIX_TABLE, 4, BAR_MSIX_TABLE);	/* BIR 0 */
	bytes_put(config, CAP_MSIX + PCI_MSIX_PBA, 4, BAR_MSIX_PBA);
	if (!fn->ops->config_size)
		return;		/* §4.1.4.6: only a device with a config has one */
	config[CAP_MSIX + PCI_CAP_LIST_NEXT] = CAP_DEVICE;
	cap_add_virtio(fn, CAP_DEVICE, sizeof(struct virtio_pci_cap), VIRTIO_PCI_CAP_DEVICE_CFG,
		       BAR_DEVICE, fn->ops->config_size);
}

static bool ops_valid(const struct virtio_pci_device_ops *ops)
{
	uint16_t size = ops->queue_size_max;

	/* No queue_reset field follows queue_used_hi here, so no VIRTIO_F_RING_RESET. */
	return ops->device_id <= VIRTIO_PCI_DEVICE_ID_MAX && ops->num_queues &&
	       ops->num_queues <= VIRTIO_PCI_QUEUES_MAX && size && !(size & (size - 1)) &&
	       size <= 32768 && ops->config_size <= VIRTIO_PCI_CONFIG_MAX &&
	       !(ops->features & 1ull << VIRTIO_F_RING_RESET);
}

/**
 * virtio_pci_init() - build a virtio PCI function for a device type
 * @fn: the function, embedded by its owner; its old contents are lost
 * @name: the guest's name, quoted in messages (kept, not copied)
 * @ops: the device type's identity, limits and callbacks; must outlive @fn
 * @ctx: passed to every callback in @ops
 * @send_msi: delivers the MSI-X messages the function raises
 * @msi_ctx: passed to @send_msi
 * @bar_address: where BAR 0 starts until the guest moves it (16 KiB aligned,
 *	normally inside GUEST_PCI_MMIO_GPA's window)
 *
 * The function comes up as after power-on: memory decoding off, MSI-X off
 * with every vector masked, device status 0. Add @fn->pci to the guest's
 * bus with pci_bus_add().
 *
 * Return: false, after logging why, if @name, @ops, @send_msi or
 * @bar_address is unusable.
 */
bool virtio_pci_init(struct virtio_pci *fn, const char *name,
		     const struct virtio_pci_device_ops *ops, void *ctx,
		     virtio_pci_msi_fn send_msi, void *msi_ctx, uint64_t bar_address)
{
	uint16_t device = (uint16_t)(VIRTIO_PCI_DEVICE_BASE + ops->device_id);

	if (!name || !ops_valid(ops) || !send_msi || bar_address % VIRTIO_PCI_BAR_SIZE) {
		log_msg("virtio-pci %s: device type %u: bad name, ops, MSI sink or BAR 0x%llx",
			name ? name : "?", ops->device_id, (unsigned long long)bar_address);
		return false;
	}
	memset(fn, 0, sizeof(*fn));
	fn->name = name;
	fn->ops = ops;
	fn->ctx = ctx;
	fn->send_msi = send_msi;
	fn->msi_ctx = msi_ctx;
	fn->offered = ops->features | 1ull << VIRTIO_F_VERSION_1;	/* §6.2 */

	pci_device_init(&fn->pci, VIRTIO_PCI_VENDOR, device,
			ops->device_id == VIRTIO_ID_NET ? PCI_CLASS_CODE_ETHERNET :
			PCI_CLASS_CODE_OTHER, VIRTIO_PCI_REVISION);
	/* §4.1.2.1: a subsystem device ID of 0x40 or more; ours repeats the device ID. */
	bytes_put(fn->pci.config, PCI_SUBSYSTEM_VENDOR_ID, 2, VIRTIO_PCI_VENDOR);
	bytes_put(fn->pci.config, PCI_SUBSYSTEM_ID, 2, device);
	pci_device_set_bar64(&fn->pci, 0, VIRTIO_PCI_BAR_SIZE, bar_address);
	caps_build(fn);
	fn->pci.written = config_written;
	fn->pci.ctx = fn;

	for (unsigned int v = 0; v < vector_count(fn); v++)
		fn->msix[v].control = PCI_MSIX_ENTRY_CTRL_MASKBIT;	/* PCI 3.0 §6.8.2.9 */
	device_reset(fn);
	window_refresh(fn);
	return true;
}

/**
 * virtio_pci_bar_address() - where the guest has put BAR 0
 * @fn: the function
 *
 * Return: the BAR's guest-physical base, whatever COMMAND says.
 */
uint64_t virtio_pci_bar_address(const struct virtio_pci *fn)
{
	return pci_device_bar64(&fn->pci, 0);
}

/**
 * virtio_pci_bar_enabled() - whether the function decodes its BAR
 * @fn: the function
 *
 * Return: the COMMAND register's memory space enable (PCI 3.0 §6.2.2).
 */
bool virtio_pci_bar_enabled(const struct virtio_pci *fn)
{
	return config_get(fn, PCI_COMMAND, 2) & PCI_COMMAND_MEMORY;
}

/**
 * virtio_pci_bar_decode() - route a guest-physical access to BAR 0
 * @fn: the function
 * @gpa: first byte the access touches
 * @size: bytes it touches
 * @offset: set to the BAR offset of @gpa when the function claims it
 *
 * Return: true if memory decoding is on and the BAR holds every byte.
 */
bool virtio_pci_bar_decode(const struct virtio_pci *fn, uint64_t gpa, unsigned int size,
			   uint64_t *offset)
{
	uint64_t base = virtio_pci_bar_address(fn);

	if (!virtio_pci_bar_enabled(fn) || gpa < base || gpa - base >= VIRTIO_PCI_BAR_SIZE ||
	    size > VIRTIO_PCI_BAR_SIZE - (gpa - base))
		return false;
	*offset = gpa - base;
	return true;
}

/**
 * virtio_pci_bar_read() - a guest read from BAR 0
 * @fn: the function
 * @offset: BAR offset
 * @size: 1, 2, 4 or 8 bytes (8 is read as two 4-byte halves)
 *
 * Fields take their natural width (§4.1.3.1); a misaligned, mis-sized or
 * out-of-range access reads 0. Reading the ISR clears it.
 *
 * Return: the value, zero-extended.
 */
uint64_t virtio_pci_bar_read(struct virtio_pci *fn, uint64_t offset, unsigned int size)
{
	uint64_t value;

	if (!bar_access_valid(offset, size))
		return 0;
	if (size == 8)
		value = bar_read(fn, (uint32_t)offset, 4, false) |
			(uint64_t)bar_read(fn, (uint32_t)offset + 4, 4, false) << 32;
	else
		value = bar_read(fn, (uint32_t)offset, size, false);
	window_refresh(fn);
	return value;
}

/**
 * virtio_pci_bar_write() - a guest write to BAR 0
 * @fn: the function
 * @offset: BAR offset
 * @size: 1, 2, 4 or 8 bytes (8 is written as two 4-byte halves)
 * @value: the value, in its low @size bytes
 *
 * Writes the access rules refuse (see virtio_pci_bar_read()) do nothing.
 *
 * Return: the queue the guest notified (its caller should poll it), or
 * VIRTIO_PCI_NO_NOTIFY.
 */
int virtio_pci_bar_write(struct virtio_pci *fn, uint64_t offset, unsigned int size,
			 uint64_t value)
{
	int kicked = VIRTIO_PCI_NO_NOTIFY;

	if (!bar_access_valid(offset, size))
		return kicked;
	if (size == 8) {
		int high;

		kicked = bar_write(fn, (uint32_t)offset, 4, (uint32_t)value);
		high = bar_write(fn, (uint32_t)offset + 4, 4, (uint32_t)(value >> 32));
		if (kicked == VIRTIO_PCI_NO_NOTIFY)
			kicked = high;
	} else {
		kicked = bar_write(fn, (uint32_t)offset, size, (uint32_t)value);
	}
	window_refresh(fn);
	return kicked;
}

/**
 * virtio_pci_interrupt() - tell the driver a queue has used buffers
 * @fn: the function
 * @queue: the queue's index
 *
 * Sends the queue's MSI-X vector, or leaves it pending while masked; with
 * MSI-X disabled only sets ISR bit 0. Nothing happens before DRIVER_OK
 * (§3.1.1), for a disabled queue, or for a queue with NO_VECTOR.
 */
void virtio_pci_interrupt(struct virtio_pci *fn, unsigned int queue)
{
	if (queue >= fn->ops->num_queues || !fn->queue[queue].enabled ||
	    !(fn->status & VIRTIO_CONFIG_S_DRIVER_OK))
		return;
	driver_notify(fn, VIRTIO_PCI_ISR_QUEUE, fn->queue[queue].msix_vector);
	window_refresh(fn);
}

/**
 * virtio_pci_config_interrupt() - tell the driver the device config changed
 * @fn: the function
 *
 * Bumps config_generation (§4.1.4.3) so a driver reading across the change
 * retries, then, once DRIVER_OK is set, notifies on msix_config (or ISR bit 1).
 */
void virtio_pci_config_interrupt(struct virtio_pci *fn)
{
	fn->config_generation++;
	if (fn->status & VIRTIO_CONFIG_S_DRIVER_OK)
		driver_notify(fn, VIRTIO_PCI_ISR_CONFIG, fn->msix_config);
	window_refresh(fn);
}

/**
 * virtio_pci_mark_needs_reset() - the device is broken until reset
 * @fn: the function
 *
 * Sets DEVICE_NEEDS_RESET and, if DRIVER_OK is set, sends the configuration
 * change notification §2.1.2 requires. Only a reset (status 0) clears it.
 */
void virtio_pci_mark_needs_reset(struct virtio_pci *fn)
{
	if (fn->status & VIRTIO_CONFIG_S_NEEDS_RESET)
		return;
	fn->status |= VIRTIO_CONFIG_S_NEEDS_RESET;
	if (fn->status & VIRTIO_CONFIG_S_DRIVER_OK)
		driver_notify(fn, VIRTIO_PCI_ISR_CONFIG, fn->msix_config);
	window_refresh(fn);
}

/**
 * virtio_pci_driver_features() - what the driver and device agreed on
 * @fn: the function
 *
 * Return: the accepted feature bits, 0 until FEATURES_OK is set.
 */
uint64_t virtio_pci_driver_features(const struct virtio_pci *fn)
{
	return fn->status & VIRTIO_CONFIG_S_FEATURES_OK ? fn->driver_features : 0;
}
