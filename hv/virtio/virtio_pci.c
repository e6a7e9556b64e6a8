/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci.c - a modern virtio PCI function (virtio 1.1 §4.1): its
 * identity, the virtio structures in BAR 0 (layout in
 * virtio_pci_internal.h), the device status state machine, and interrupts
 * through the MSI-X table (vdev/msix.c) or the ISR. The capability list and
 * the configuration access window are in virtio_pci_caps.c.
 */
#include <string.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_pci.h>

#include "lib/log.h"
#include "vdev/msix.h"
#include "virtio/virtio_pci.h"
#include "virtio/virtio_pci_internal.h"

/* PCI identity of a non-transitional device (virtio 1.1 §4.1.2). */
#define VIRTIO_PCI_VENDOR	0x1af4
#define VIRTIO_PCI_DEVICE_BASE	0x1040	/* + virtio device ID, up to 0x107f */
#define VIRTIO_PCI_DEVICE_ID_MAX 0x3f
#define VIRTIO_PCI_REVISION	1	/* §4.1.2.1: 1 or more */
/* PCI Code and ID Assignment spec: class 02h/00h Ethernet; class FFh fits no other. */
#define PCI_CLASS_CODE_ETHERNET	0x020000
#define PCI_CLASS_CODE_OTHER	0xff0000

/* §4.1.4.5: bit 0 a used buffer notification, bit 1 a config change. */
#define VIRTIO_PCI_ISR_QUEUE	0x1

#define DRIVER_STATUS_BITS	(VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER | \
				 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK | \
				 VIRTIO_CONFIG_S_FAILED)

/* [offset, offset + size) lies inside [start, start + length). */
static bool inside(uint32_t offset, unsigned int size, uint32_t start, uint32_t length)
{
	return offset >= start && offset - start < length && size <= length - (offset - start);
}

static uint16_t msix_vector_checked(const struct virtio_pci *fn, uint16_t vector)
{
	/* §4.1.5.1.2: an unmappable vector reads back as NO_VECTOR. */
	return msix_vector_valid(&fn->msix_state, vector) ? vector : VIRTIO_MSI_NO_VECTOR;
}

/*
 * Tell the driver: by MSI-X if enabled (NO_VECTOR: the driver wants none),
 * else only in the ISR (no INTx pin). Returns whether BAR 0 changed: the
 * ISR, or a pending bit of a masked vector.
 */
static bool driver_notify(struct virtio_pci *fn, uint8_t isr_bit, uint16_t vector)
{
	switch (msix_signal(&fn->msix_state, vector)) {
	case MSIX_OFF:
		fn->isr |= isr_bit;
		return true;
	case MSIX_PENDING:
		return true;
	default:
		return false;
	}
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
	for (unsigned int i = 0; i < fn->dev->num_queues; i++) {
		struct virtio_pci_queue *q = &fn->queue[i];

		memset(q, 0, sizeof(*q));
		q->size = fn->dev->ops->queue_size_max;
		q->msix_vector = VIRTIO_MSI_NO_VECTOR;
	}
}

/* §3.1.1 step 5: a subset of what was offered, and modern (§6.1). */
static void status_write(struct virtio_pci *fn, uint8_t value)
{
	uint8_t old = fn->status & DRIVER_STATUS_BITS, added;

	if (!value) {
		device_reset(fn);
		virtio_dev_reset(fn->dev);
		return;
	}
	value &= DRIVER_STATUS_BITS;	/* DEVICE_NEEDS_RESET is the device's */
	if (old & ~value)
		return;		/* §2.1.1: only a reset clears bits */
	added = value & ~old;
	/*
	 * §3.1.1 steps 5-6: the device takes the driver's set here, its own
	 * rules included, or refuses it; a refused set leaves the device
	 * unusable until a reset, and another FEATURES_OK does not revive it.
	 */
	if ((added & VIRTIO_CONFIG_S_FEATURES_OK) &&
	    (!(value & VIRTIO_CONFIG_S_DRIVER) || fn->features_refused ||
	     !virtio_dev_set_features(fn->dev, fn->driver_features))) {
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
		if (!(fn->status & VIRTIO_CONFIG_S_NEEDS_RESET) && log_gate_allow(fn->log))
			log_msg("virtio-pci %s: DRIVER_OK without accepted features, "
				"device needs reset", fn->dev->name);
		virtio_pci_mark_needs_reset(fn);
		return;
	}
	fn->status = value | (fn->status & VIRTIO_CONFIG_S_NEEDS_RESET);
	added = value & ~old;
	if (added & VIRTIO_CONFIG_S_DRIVER_OK)
		virtio_dev_start(fn->dev);
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
	return fn->queue_select < fn->dev->num_queues ? &fn->queue[fn->queue_select] : NULL;
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
		return feature_word(fn->dev->offered, fn->device_feature_select);
	case VIRTIO_PCI_COMMON_GFSELECT:
		return fn->driver_feature_select;
	case VIRTIO_PCI_COMMON_GF:
		return feature_word(fn->driver_features, fn->driver_feature_select);
	case VIRTIO_PCI_COMMON_MSIX:
		return fn->msix_config;
	case VIRTIO_PCI_COMMON_NUMQ:
		return fn->dev->num_queues;
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

/* Why the transport or the device refuses q's rings, or NULL if both take them. */
static const char *queue_refusal(struct virtio_pci *fn, struct virtio_pci_queue *q)
{
	struct virtq_layout layout = { .size = q->size, .desc = q->desc, .avail = q->driver,
				       .used = q->device };

	/* §2.6: descriptor table 16-byte, driver ring 2-byte, device ring 4-byte aligned. */
	if (q->desc % 16)
		return "descriptor table not 16-byte aligned";
	if (q->driver % 2)
		return "driver ring not 2-byte aligned";
	if (q->device % 4)
		return "device ring not 4-byte aligned";
	/* The rings' format follows the features taken at FEATURES_OK (event index, indirect). */
	if (virtio_dev_enable_queue(fn->dev, (unsigned int)(q - fn->queue), &layout) < 0)
		return "refused by the device";
	return NULL;
}

static void queue_enable(struct virtio_pci *fn, struct virtio_pci_queue *q)
{
	const char *refused;

	if (q->enabled || !(fn->status & VIRTIO_CONFIG_S_FEATURES_OK))
		return;		/* the rings' format depends on the features */
	refused = queue_refusal(fn, q);
	if (!refused) {
		q->enabled = true;
		return;
	}
	if (log_gate_allow(fn->log))
		log_msg("virtio-pci %s: device %04x: queue %u refused: %s "
			"(rings 0x%llx 0x%llx 0x%llx), device needs reset", fn->dev->name,
			VIRTIO_PCI_DEVICE_BASE + fn->dev->ops->device_id,
			(unsigned int)(q - fn->queue), refused, (unsigned long long)q->desc, (unsigned long long)q->driver,
			(unsigned long long)q->device);
	virtio_pci_mark_needs_reset(fn);
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
		if (value && !(value & (value - 1)) && value <= fn->dev->ops->queue_size_max)
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

uint32_t virtio_pci_bar_read_one(struct virtio_pci *fn, uint32_t offset, unsigned int size,
				 bool peek)
{
	if (inside(offset, size, BAR_COMMON, COMMON_SIZE))
		return common_field_size(offset - BAR_COMMON) == size ?
		       common_read(fn, offset - BAR_COMMON) : 0;
	if (inside(offset, size, BAR_ISR, 1)) {
		uint8_t isr = fn->isr;

		if (!peek)
			fn->isr = 0;	/* §4.1.4.5: reading acknowledges */
		return isr;
	}
	if (inside(offset, size, BAR_DEVICE, fn->dev->ops->config_size))
		return virtio_dev_read_config(fn->dev, offset - BAR_DEVICE, size);
	if (inside(offset, size, BAR_MSIX_TABLE, BAR_MSIX_PBA - BAR_MSIX_TABLE))
		return msix_table_read(&fn->msix_state, offset - BAR_MSIX_TABLE, size);
	if (inside(offset, size, BAR_MSIX_PBA, VIRTIO_PCI_BAR_SIZE - BAR_MSIX_PBA))
		return msix_pba_read(&fn->msix_state, offset - BAR_MSIX_PBA, size);
	return 0;	/* notifications read nothing */
}

int virtio_pci_bar_write_one(struct virtio_pci *fn, uint32_t offset, unsigned int size,
			     uint32_t value)
{
	if (inside(offset, size, BAR_COMMON, COMMON_SIZE)) {
		if (common_field_size(offset - BAR_COMMON) == size)
			common_write(fn, offset - BAR_COMMON, value);
	} else if (inside(offset, size, BAR_NOTIFY, fn->dev->num_queues * NOTIFY_MULTIPLIER)) {
		/*
		 * §4.1.5.2: the slot names the queue (queue_notify_off is its
		 * index). Sidecores poll and the rings ask for no kicks, so a
		 * kick is only counted and handed back to the caller.
		 */
		if ((offset - BAR_NOTIFY) % NOTIFY_MULTIPLIER == 0) {
			fn->kicks++;
			return (int)((offset - BAR_NOTIFY) / NOTIFY_MULTIPLIER);
		}
	} else if (inside(offset, size, BAR_MSIX_TABLE, BAR_MSIX_PBA - BAR_MSIX_TABLE)) {
		msix_table_write(&fn->msix_state, offset - BAR_MSIX_TABLE, size, value);
	}
	/* ISR and PBA are read-only; so is every model's device config (virtio_dev.h). */
	return VIRTIO_PCI_NO_NOTIFY;
}

bool virtio_pci_bar_access_valid(uint64_t offset, unsigned int size)
{
	return (size == 1 || size == 2 || size == 4 || size == 8) && offset % size == 0 &&
	       offset < VIRTIO_PCI_BAR_SIZE && size <= VIRTIO_PCI_BAR_SIZE - offset;
}

/* --- the function ----------------------------------------------------------- */

/* The core reads a model's whole device config into a buffer of this size. */
_Static_assert(VIRTIO_DEV_CONFIG_MAX <= VIRTIO_PCI_CONFIG_MAX,
	       "a model's device config does not fit its page of BAR 0");

static bool dev_valid(const struct virtio_dev *dev)
{
	const struct virtio_dev_ops *ops = dev->ops;
	uint16_t size;

	if (!ops || !ops->queue || !dev->name)
		return false;
	size = ops->queue_size_max;
	/* No queue_reset field follows queue_used_hi here, so no VIRTIO_F_RING_RESET. */
	return ops->device_id <= VIRTIO_PCI_DEVICE_ID_MAX && dev->num_queues &&
	       dev->num_queues <= VIRTIO_PCI_QUEUES_MAX && size && !(size & (size - 1)) &&
	       size <= 32768 && ops->config_size <= VIRTIO_DEV_CONFIG_MAX &&
	       !(dev->offered & 1ull << VIRTIO_F_RING_RESET);
}

/**
 * virtio_pci_init() - build a virtio PCI function for a device model
 * @fn: the function, embedded by its owner; its old contents are lost
 * @dev: the model, set up by its ops->init and in reset state; its name
 *	(the guest's) is quoted in messages; must outlive @fn
 * @send_msi: delivers the MSI-X messages the function raises
 * @msi_ctx: passed to @send_msi
 * @bar_address: where BAR 0 starts until the guest moves it (16 KiB aligned,
 *	normally inside GUEST_PCI_MMIO_GPA's window)
 *
 * The function comes up as after power-on: memory decoding off, MSI-X off
 * with every vector masked, device status 0. Add @fn->pci to the guest's
 * bus with vpci_bus_add().
 *
 * Return: false, after logging why, if @dev's name or limits, @send_msi or
 * @bar_address is unusable.
 */
bool virtio_pci_init(struct virtio_pci *fn, struct virtio_dev *dev, msix_send_fn send_msi,
		     void *msi_ctx, uint64_t bar_address)
{
	uint16_t id = dev->ops ? dev->ops->device_id : 0;
	uint16_t device = (uint16_t)(VIRTIO_PCI_DEVICE_BASE + id);

	if (!dev_valid(dev) || !send_msi || bar_address % VIRTIO_PCI_BAR_SIZE) {
		log_msg("virtio-pci %s: device type %u: bad name, limits, MSI sink or BAR 0x%llx",
			dev->name ? dev->name : "?", id, (unsigned long long)bar_address);
		return false;
	}
	memset(fn, 0, sizeof(*fn));
	fn->dev = dev;

	vpci_device_init(&fn->pci, VIRTIO_PCI_VENDOR, device,
			id == VIRTIO_ID_NET ? PCI_CLASS_CODE_ETHERNET :
			PCI_CLASS_CODE_OTHER, VIRTIO_PCI_REVISION);
	/* §4.1.2.1: a subsystem device ID of 0x40 or more; ours repeats the device ID. */
	virtio_pci_bytes_put(fn->pci.config, PCI_SUBSYSTEM_VENDOR_ID, 2, VIRTIO_PCI_VENDOR);
	virtio_pci_bytes_put(fn->pci.config, PCI_SUBSYSTEM_ID, 2, device);
	vpci_device_set_bar64(&fn->pci, 0, VIRTIO_PCI_BAR_SIZE, bar_address);
	virtio_pci_caps_init(fn);
	msix_init(&fn->msix_state, fn->msix, fn->msix_pending, virtio_pci_vectors(fn),
		  send_msi, msi_ctx);
	device_reset(fn);
	virtio_pci_window_refresh(fn);
	return true;
}

void virtio_pci_set_log_gate(struct virtio_pci *fn, const struct log_gate *gate)
{
	fn->log = gate;
}

/**
 * virtio_pci_bar_address() - where the guest has put BAR 0
 * @fn: the function
 *
 * Return: the BAR's guest-physical base, whatever COMMAND says.
 */
uint64_t virtio_pci_bar_address(const struct virtio_pci *fn)
{
	return vpci_device_bar64(&fn->pci, 0);
}

/**
 * virtio_pci_bar_enabled() - whether the function decodes its BAR
 * @fn: the function
 *
 * Return: the COMMAND register's memory space enable (PCI 3.0 §6.2.2).
 */
bool virtio_pci_bar_enabled(const struct virtio_pci *fn)
{
	return virtio_pci_config_get(fn, PCI_COMMAND, 2) & PCI_COMMAND_MEMORY;
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

	if (!virtio_pci_bar_access_valid(offset, size))
		return 0;
	if (size == 8)
		value = virtio_pci_bar_read_one(fn, (uint32_t)offset, 4, false) |
			(uint64_t)virtio_pci_bar_read_one(fn, (uint32_t)offset + 4, 4, false) << 32;
	else
		value = virtio_pci_bar_read_one(fn, (uint32_t)offset, size, false);
	virtio_pci_window_refresh(fn);
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

	if (!virtio_pci_bar_access_valid(offset, size))
		return kicked;
	if (size == 8) {
		int high;

		kicked = virtio_pci_bar_write_one(fn, (uint32_t)offset, 4, (uint32_t)value);
		high = virtio_pci_bar_write_one(fn, (uint32_t)offset + 4, 4,
						(uint32_t)(value >> 32));
		if (kicked == VIRTIO_PCI_NO_NOTIFY)
			kicked = high;
	} else {
		kicked = virtio_pci_bar_write_one(fn, (uint32_t)offset, size, (uint32_t)value);
	}
	virtio_pci_window_refresh(fn);
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
	if (queue >= fn->dev->num_queues || !fn->queue[queue].enabled ||
	    !(fn->status & VIRTIO_CONFIG_S_DRIVER_OK))
		return;
	/* The common case, a message sent, leaves the window's value as it was. */
	if (driver_notify(fn, VIRTIO_PCI_ISR_QUEUE, fn->queue[queue].msix_vector))
		virtio_pci_window_refresh(fn);
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
	virtio_pci_window_refresh(fn);
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
	virtio_pci_window_refresh(fn);
}

/**
 * virtio_pci_dev_interrupt() - what the model's interrupt callback asks of the function
 * @fn: the function
 * @source: a queue, or VIRTIO_DEV_CONFIG_CHANGE
 *
 * A queue's used-buffer notification; for a configuration change, the
 * device needs a reset if the model says so (virtio_dev_fail()), else its
 * configuration changed.
 */
void virtio_pci_dev_interrupt(struct virtio_pci *fn, unsigned int source)
{
	if (source != VIRTIO_DEV_CONFIG_CHANGE)
		virtio_pci_interrupt(fn, source);
	else if (virtio_dev_needs_reset(fn->dev))
		virtio_pci_mark_needs_reset(fn);
	else
		virtio_pci_config_interrupt(fn);
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
