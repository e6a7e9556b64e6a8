// SPDX-License-Identifier: MIT
/*
 * fuzz_virtio_pci.c - arbitrary guest traffic against a virtio PCI function
 * on a guest's bus: config space through ECAM and CF8/CFC, BAR 0 at any
 * offset and width, and the device side's interrupts, all interleaved.
 *
 * Behind the function sits a fake device model on the core (virtio_dev.h)
 * with 2 MiB of guest RAM, so rings outside it are refused. Byte 0 of the
 * input picks the model: bit 0 clear, 3 queues of 256 with a 12-byte device
 * config; set, 64 queues of 32768 with none. Then come 8-byte operations:
 *
 *   byte 0  bits 2:0: 0 ECAM read, 1 ECAM write, 2 CF8/CFC read,
 *           3 CF8/CFC write, 4 BAR read, 5 BAR write, 6 device event,
 *           7 driver step (a well-formed move, so deep states are reached);
 *           bits 5:3: access size, one of 1 2 4 8 1 2 4 3 (config space
 *           gets 0 for 8: pci.c takes no 8-byte access)
 *   1-2     config register (bits 11:0) or BAR offset (bits 14:0, so
 *           twice the BAR); for events and steps, byte 1 picks which
 *   3       events and steps: an argument
 *   4-7     the value written, or an argument
 *
 * After every operation the function must hold its invariants: read-only
 * config bits unchanged and BAR 0 aligned to its size; status never shows
 * FEATURES_OK with a feature that was not offered or without VERSION_1 or
 * after a refusal, nor DRIVER_OK without FEATURES_OK (such a write leaves
 * DEVICE_NEEDS_RESET, a valid outcome); DRIVER_OK never reaches a device
 * that needs a reset; every queue has a valid size and vector and
 * aligned rings when enabled; MSI-X pending bits only for real vectors.
 * The model's callbacks and the MSI sink check what reaches them: config
 * reads only of a device that has one, valid queues, a clean state at
 * reset, messages only from enabled, unmasked vectors; a queue the model
 * runs is one the transport shows enabled, with the same rings. BAR
 * accesses first check that the BAR decodes exactly its own 16 KiB while
 * memory decoding is on. A broken rule aborts,
 * which libFuzzer reports.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_pci.h>

#include "lib/container.h"
#include "virtio/virtio_pci.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define SLOT		1
#define BAR_GPA		0xc0000000ull
#define OP_BYTES	8
#define CONFIG_SIZE	12
#define VERSION_1	(1ull << VIRTIO_F_VERSION_1)
#define WINDOW_DATA	offsetof(struct virtio_pci_cfg_cap, pci_cfg_data)
#define GUEST_RAM	(2u << 20)
/* A feature the model takes only along with F_NEEDED: its own rule (§2.2). */
#define F_PICKY		33
#define F_NEEDED	5

static const unsigned int access_sizes[8] = { 1, 2, 4, 8, 1, 2, 4, 3 };

struct fuzz_state {
	struct vpci_bus bus;
	struct vpci_device bridge;
	struct virtio_pci fn;
	struct virtio_dev vdev;
	struct virtio_dev_ops ops;	/* fuzz_ops, or the large model's */
	struct virtq queue[VIRTIO_PCI_QUEUES_MAX];
	struct guest_mem mem;
	uint8_t initial[PCI_CFG_SPACE_SIZE];
	unsigned int msix_pos;
	uint64_t msis;
};

static bool power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t width_mask(unsigned int size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

static struct fuzz_state *to_state(const struct virtio_dev *vdev)
{
	return container_of(vdev, struct fuzz_state, vdev);
}

static struct virtq *fuzz_queue(struct virtio_dev *vdev, unsigned int index)
{
	CHECK(index < vdev->num_queues);
	return &to_state(vdev)->queue[index];
}

static void fuzz_config(const struct virtio_dev *vdev, void *bytes)
{
	CHECK(vdev->ops->config_size);
	memset(bytes, 0x5a, vdev->ops->config_size);
}

static bool fuzz_features_ok(const struct virtio_dev *vdev, uint64_t features)
{
	(void)vdev;
	return !(features & 1ull << F_PICKY) || (features & 1ull << F_NEEDED);
}

/*
 * The transport accepted, at FEATURES_OK, a subset of the offer with
 * VERSION_1 that keeps the model's own rules, and the model has that set.
 */
static void fuzz_start(struct virtio_dev *vdev)
{
	struct fuzz_state *s = to_state(vdev);
	uint64_t accepted = s->fn.driver_features;

	CHECK(s->fn.status & VIRTIO_CONFIG_S_FEATURES_OK);
	CHECK(!(s->fn.status & VIRTIO_CONFIG_S_NEEDS_RESET));
	CHECK(!(accepted & ~vdev->offered) && (accepted & VERSION_1));
	CHECK(fuzz_features_ok(vdev, accepted));
	CHECK(vdev->features == accepted);
}

static uint32_t config_get(const struct fuzz_state *s, unsigned int reg, unsigned int size)
{
	uint32_t v = 0;

	memcpy(&v, s->fn.pci.config + reg, size);
	return v;
}

/* Called after the transport reset its own state: the model must find it clean. */
static void fuzz_reset(struct virtio_dev *vdev)
{
	struct fuzz_state *s = to_state(vdev);

	CHECK(s->fn.status == 0 && !s->fn.driver_features);
	for (unsigned int i = 0; i < vdev->num_queues; i++)
		CHECK(!s->fn.queue[i].enabled &&
		      s->fn.queue[i].size == vdev->ops->queue_size_max &&
		      !s->queue[i].ready);
}

/* What the glue does with the model's interrupts (hv/guest/guest_virtio.c). */
static void fuzz_interrupt(struct virtio_dev *vdev, unsigned int source)
{
	virtio_pci_dev_interrupt(&to_state(vdev)->fn, source);
}

/* The small model's; the large one differs in identity and limits (fuzz_state_init()). */
static const struct virtio_dev_ops fuzz_ops = {
	.kind = "fuzz",
	.device_id = VIRTIO_ID_NET,
	.queue_size_max = 256,
	.config_size = CONFIG_SIZE,
	.queue = fuzz_queue,
	.config = fuzz_config,
	.features_ok = fuzz_features_ok,
	.start = fuzz_start,
	.reset = fuzz_reset,
};

static uint16_t msix_flags(const struct fuzz_state *s)
{
	return (uint16_t)config_get(s, s->msix_pos + PCI_MSIX_FLAGS, 2);
}

static void fuzz_msi(void *ctx, uint64_t address, uint32_t data)
{
	struct fuzz_state *s = ctx;
	uint16_t flags = msix_flags(s);
	bool found = false;

	CHECK((flags & PCI_MSIX_FLAGS_ENABLE) && !(flags & PCI_MSIX_FLAGS_MASKALL));
	for (unsigned int v = 0; v <= s->vdev.num_queues; v++) {
		const struct msix_entry *e = &s->fn.msix[v];

		if (!(e->control & PCI_MSIX_ENTRY_CTRL_MASKBIT) && e->data == data &&
		    ((uint64_t)e->address_hi << 32 | e->address_lo) == address)
			found = true;
	}
	CHECK(found);
	s->msis++;
}

static void fuzz_state_init(struct fuzz_state *s, bool large)
{
	static uint8_t ram[GUEST_RAM] __attribute__((aligned(4096)));
	struct virtio_dev_params params = { .name = "fuzz", .mem = &s->mem,
					    .interrupt = fuzz_interrupt };
	unsigned int queues = large ? VIRTIO_PCI_QUEUES_MAX : 3;

	memset(s, 0, sizeof(*s));
	s->mem = (struct guest_mem){ .base = ram, .size = sizeof(ram) };
	s->ops = fuzz_ops;
	if (large) {
		s->ops.device_id = VIRTIO_ID_VSOCK;
		s->ops.queue_size_max = 32768;
		s->ops.config_size = 0;
	}
	CHECK(virtio_dev_init(&s->vdev, &s->ops, &params,
			      large ? 0 : 1ull << F_NEEDED | 1ull << 16 | 1ull << F_PICKY, queues));
	for (unsigned int q = 0; q < queues; q++)
		virtq_init(&s->queue[q], &s->mem, params.name, q);
	vpci_bus_init(&s->bus);
	vpci_host_bridge_init(&s->bridge);
	CHECK(virtio_pci_init(&s->fn, &s->vdev, fuzz_msi, s, BAR_GPA));
	CHECK(vpci_bus_add(&s->bus, 0, &s->bridge));
	CHECK(vpci_bus_add(&s->bus, SLOT, &s->fn.pci));
	memcpy(s->initial, s->fn.pci.config, PCI_CFG_SPACE_SIZE);
	for (unsigned int pos = s->fn.pci.config[PCI_CAPABILITY_LIST]; pos;
	     pos = s->fn.pci.config[pos + PCI_CAP_LIST_NEXT])
		if (s->fn.pci.config[pos] == PCI_CAP_ID_MSIX)
			s->msix_pos = pos;
	CHECK(s->msix_pos);
}

static void check_invariants(const struct fuzz_state *s)
{
	const struct virtio_pci *fn = &s->fn;
	unsigned int vectors = s->vdev.num_queues + 1u;
	uint8_t status = fn->status;

	for (unsigned int i = 0; i < PCI_CFG_SPACE_SIZE; i++)
		CHECK(((fn->pci.config[i] ^ s->initial[i]) & ~fn->pci.write_mask[i]) == 0);
	CHECK(virtio_pci_bar_address(fn) % VIRTIO_PCI_BAR_SIZE == 0);
	CHECK((fn->pci.config[PCI_BASE_ADDRESS_0] & 0xf) == PCI_BASE_ADDRESS_MEM_TYPE_64);

	CHECK(!(status & ~(VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			   VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK |
			   VIRTIO_CONFIG_S_FAILED | VIRTIO_CONFIG_S_NEEDS_RESET)));
	if (status & VIRTIO_CONFIG_S_FEATURES_OK)
		CHECK(!(fn->driver_features & ~s->vdev.offered) &&
		      (fn->driver_features & VERSION_1));
	if (status & VIRTIO_CONFIG_S_DRIVER_OK)
		CHECK(status & VIRTIO_CONFIG_S_FEATURES_OK);
	if (fn->features_refused)
		CHECK(!(status & VIRTIO_CONFIG_S_FEATURES_OK));
	CHECK(!(virtio_pci_driver_features(fn) & ~s->vdev.offered));
	CHECK(fn->msix_config < vectors || fn->msix_config == VIRTIO_MSI_NO_VECTOR);

	for (unsigned int i = 0; i < VIRTIO_PCI_QUEUES_MAX; i++) {
		const struct virtio_pci_queue *q = &fn->queue[i];

		const struct virtq *vq = &s->queue[i];

		if (i >= s->vdev.num_queues) {
			CHECK(!q->enabled && !q->size && !vq->ready);
			continue;
		}
		CHECK(power_of_two(q->size) && q->size <= s->vdev.ops->queue_size_max);
		CHECK(q->msix_vector < vectors || q->msix_vector == VIRTIO_MSI_NO_VECTOR);
		if (q->enabled)
			CHECK(q->desc % 16 == 0 && q->driver % 2 == 0 && q->device % 4 == 0);
		/* The model runs only rings the transport shows, as the driver placed them. */
		if (vq->ready)
			CHECK(q->enabled && vq->size == q->size &&
			      (const uint8_t *)vq->desc == s->mem.base + q->desc &&
			      (const uint8_t *)vq->avail == s->mem.base + q->driver &&
			      (const uint8_t *)vq->used == s->mem.base + q->device);
	}
	for (unsigned int v = vectors; v < 64 * (sizeof(fn->msix_pending) / sizeof(uint64_t)); v++)
		CHECK(!(fn->msix_pending[v / 64] & 1ull << (v % 64)));
}

/* The lead's routing: the BAR claims an access iff decoded and wholly inside. */
static void check_decode(const struct fuzz_state *s, uint64_t offset, unsigned int size)
{
	uint64_t gpa = virtio_pci_bar_address(&s->fn) + offset, claimed = ~0ull;
	bool inside = offset < VIRTIO_PCI_BAR_SIZE && size <= VIRTIO_PCI_BAR_SIZE - offset;

	if (virtio_pci_bar_decode(&s->fn, gpa, size, &claimed))
		CHECK(virtio_pci_bar_enabled(&s->fn) && inside && claimed == offset);
	else
		CHECK(!virtio_pci_bar_enabled(&s->fn) || !inside || gpa < offset);
}

static uint64_t bar_read(struct fuzz_state *s, uint64_t offset, unsigned int size)
{
	uint64_t v = virtio_pci_bar_read(&s->fn, offset, size);

	CHECK((v & ~width_mask(size)) == 0);
	if (offset >= VIRTIO_PCI_BAR_SIZE)
		CHECK(v == 0);
	return v;
}

static void bar_write(struct fuzz_state *s, uint64_t offset, unsigned int size, uint64_t v)
{
	int kicked = virtio_pci_bar_write(&s->fn, offset, size, v);

	CHECK(kicked == VIRTIO_PCI_NO_NOTIFY || (kicked >= 0 && kicked < s->vdev.num_queues));
}

static void common_write(struct fuzz_state *s, unsigned int field, unsigned int size,
			 uint32_t value)
{
	bar_write(s, field, size, value);	/* the common config sits at offset 0 */
}

static void status_add(struct fuzz_state *s, uint8_t bits)
{
	common_write(s, VIRTIO_PCI_COMMON_STATUS, 1,
		     (uint32_t)bar_read(s, VIRTIO_PCI_COMMON_STATUS, 1) | bits);
}

/* Moves a well-behaved driver would make, with fuzzed arguments. */
static void driver_step(struct fuzz_state *s, uint8_t which, uint8_t arg, uint32_t value)
{
	uint64_t table = config_get(s, s->msix_pos + PCI_MSIX_TABLE, 4) & PCI_MSIX_TABLE_OFFSET;
	uint64_t desc = (value & 0xff) << 12;
	unsigned int pos;

	switch (which % 8) {
	case 0:
		common_write(s, VIRTIO_PCI_COMMON_STATUS, 1, 0);
		break;
	case 1:
		status_add(s, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
		break;
	case 2:
		common_write(s, VIRTIO_PCI_COMMON_GFSELECT, 4, arg & 1);
		if (arg & 2)	/* only offered bits */
			value &= (uint32_t)(s->vdev.offered >> (32 * (arg & 1)));
		common_write(s, VIRTIO_PCI_COMMON_GF, 4, value | ((arg & 5) == 5));
		break;
	case 3:
		status_add(s, VIRTIO_CONFIG_S_FEATURES_OK);
		break;
	case 4:	/* value: ring page, size, vector, misalignment */
		common_write(s, VIRTIO_PCI_COMMON_Q_SELECT, 2, arg % (s->vdev.num_queues + 1u));
		common_write(s, VIRTIO_PCI_COMMON_Q_SIZE, 2, 1u << ((value >> 8 & 0xff) % 17));
		common_write(s, VIRTIO_PCI_COMMON_Q_DESCLO, 4, (uint32_t)desc | (value >> 24 & 8));
		common_write(s, VIRTIO_PCI_COMMON_Q_AVAILLO, 4,
			     (uint32_t)desc + 0x1000 + (value >> 29 & 1));
		common_write(s, VIRTIO_PCI_COMMON_Q_USEDLO, 4,
			     (uint32_t)desc + 0x2000 + (value >> 29 & 2));
		common_write(s, VIRTIO_PCI_COMMON_Q_MSIX, 2, value >> 16 & 0x7f);
		common_write(s, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
		break;
	case 5:
		status_add(s, VIRTIO_CONFIG_S_DRIVER_OK);
		break;
	case 6:
		pos = s->msix_pos + PCI_MSIX_FLAGS;
		vpci_ecam_write(&s->bus, SLOT << 15 | pos, 2,
			       PCI_MSIX_FLAGS_ENABLE | (arg & 1 ? PCI_MSIX_FLAGS_MASKALL : 0));
		common_write(s, VIRTIO_PCI_COMMON_MSIX, 2, arg >> 2);
		table += ((value & 0xff) % (s->vdev.num_queues + 1u)) * PCI_MSIX_ENTRY_SIZE;
		bar_write(s, table + PCI_MSIX_ENTRY_LOWER_ADDR, 4, 0xfee00000u | (value & 0xff000));
		bar_write(s, table + PCI_MSIX_ENTRY_DATA, 4, value >> 24);
		bar_write(s, table + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, arg >> 1 & 1);
		break;
	default:
		pos = s->fn.pci.config[PCI_CAPABILITY_LIST];
		while (pos && (s->fn.pci.config[pos] != PCI_CAP_ID_VNDR ||
			       s->fn.pci.config[pos + VIRTIO_PCI_CAP_CFG_TYPE] !=
			       VIRTIO_PCI_CAP_PCI_CFG))
			pos = s->fn.pci.config[pos + VIRTIO_PCI_CAP_NEXT];
		CHECK(pos);
		pos |= SLOT << 15;
		vpci_ecam_write(&s->bus, pos + VIRTIO_PCI_CAP_BAR, 1, arg >> 4);
		vpci_ecam_write(&s->bus, pos + VIRTIO_PCI_CAP_OFFSET, 4, value & 0x3fff);
		vpci_ecam_write(&s->bus, pos + VIRTIO_PCI_CAP_LENGTH, 4, 1u << (arg & 3));
		if (arg & 8)
			vpci_ecam_write(&s->bus, pos + WINDOW_DATA, 4, value >> 14);
		else
			vpci_ecam_read(&s->bus, pos + WINDOW_DATA, 4);
		break;
	}
}

static void device_event(struct fuzz_state *s, uint8_t which, uint8_t arg)
{
	switch (which % 3) {
	case 0:
		virtio_pci_interrupt(&s->fn, arg % 70u);
		break;
	case 1:
		virtio_pci_config_interrupt(&s->fn);
		break;
	default:
		virtio_pci_mark_needs_reset(&s->fn);
		break;
	}
}

static void run_op(struct fuzz_state *s, const uint8_t *op)
{
	unsigned int size = access_sizes[(op[0] >> 3) & 7];
	unsigned int config_size = size == 8 ? 0 : size;
	unsigned int reg = (op[1] | op[2] << 8) & 0xfff;
	uint64_t offset = (op[1] | op[2] << 8) & 0x7fff;
	uint32_t value = (uint32_t)op[4] | (uint32_t)op[5] << 8 | (uint32_t)op[6] << 16 |
			 (uint32_t)op[7] << 24;
	uint32_t result;

	switch (op[0] & 7) {
	case 0:
		result = vpci_ecam_read(&s->bus, SLOT << 15 | reg, config_size);
		CHECK((result & ~width_mask(config_size)) == 0);
		break;
	case 1:
		vpci_ecam_write(&s->bus, SLOT << 15 | reg, config_size, value);
		break;
	case 2:
	case 3:
		vpci_io_write(&s->bus, VPCI_CONFIG_ADDRESS_PORT, 4,
			     1u << 31 | SLOT << 11 | (reg & 0xfc));
		if (op[0] & 1)
			vpci_io_write(&s->bus, (uint16_t)(VPCI_CONFIG_DATA_PORT + (reg & 3)),
				     config_size, value);
		else
			vpci_io_read(&s->bus, (uint16_t)(VPCI_CONFIG_DATA_PORT + (reg & 3)),
				    config_size);
		break;
	case 4:
		check_decode(s, offset, size);
		bar_read(s, offset, size);
		break;
	case 5:
		check_decode(s, offset, size);
		bar_write(s, offset, size, (uint64_t)~value << 32 | value);
		break;
	case 6:
		device_event(s, op[1], op[3]);
		break;
	default:
		driver_step(s, op[1], op[3], value);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_state s;

	if (!size)
		return 0;
	fuzz_state_init(&s, data[0] & 1);
	for (size_t at = 1; at + OP_BYTES <= size; at += OP_BYTES) {
		run_op(&s, data + at);
		check_invariants(&s);
	}
	return 0;
}
