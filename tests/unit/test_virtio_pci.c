/* SPDX-License-Identifier: MIT */
/*
 * test_virtio_pci.c - unit tests for hv/virtio/virtio_pci.c, driven the way
 * Linux 6.1's virtio_pci_modern driver drives a device: find the virtio
 * capabilities (virtio 1.1 §4.1.4), size and enable the BAR, set up MSI-X
 * (PCI 3.0 §6.8.2), then reset, ACKNOWLEDGE, DRIVER, features, FEATURES_OK,
 * queues with their vectors, DRIVER_OK (§3.1.1). Config space is reached
 * through the bus (ECAM, CF8/CFC), the BAR through its guest-physical address.
 * Behind the function sits a fake device model on the core (virtio_dev.h)
 * that records what reaches it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_net.h>
#include <linux/virtio_pci.h>

#include "config/guest_layout.h"
#include "lib/ratelimit.h"
#include "tests/unit/support/stderr_capture.h"
#include "virtio/virtio_pci.h"

#define SLOT		2
#define BAR_GPA		GUEST_PCI_MMIO_GPA
#define NET_QUEUES	3
#define QUEUE_MAX	256
#define CONFIG_SIZE	12
#define NET_FEATURES	(1ull << VIRTIO_NET_F_MAC | 1ull << VIRTIO_NET_F_STATUS | \
			 1ull << VIRTIO_NET_F_MRG_RXBUF)
#define VERSION_1	(1ull << VIRTIO_F_VERSION_1)
#define MSI_ADDRESS	0xfee00000u	/* destination APIC ID in bits 19:12 */
#define MSI_VECTOR_BASE	0x40
#define PCI_FIND_CAP_TTL 48		/* Linux's bound on a capability walk */
/* virtio-net with 8 queue pairs (VIRTIO_NET_F_MQ): 16 data queues, then the control queue. */
#define MQ_QUEUES	17
#define MQ_FEATURES	(NET_FEATURES | 1ull << VIRTIO_NET_F_CTRL_VQ | 1ull << VIRTIO_NET_F_MQ)
#define PCI_CAP_SLOTS	(VIRTIO_PCI_CAP_PCI_CFG + 1)
/* Guest RAM up to the highest ring the tests place (ring_gpa()), reserved, not backed. */
#define GUEST_RAM	0x100400000ull

/* The device model behind the transport: records what the transport tells it. */
struct fake_device {
	struct virtio_dev vdev;
	struct virtio_dev_ops ops;	/* identity and limits, per fixture */
	struct virtq queue[VIRTIO_PCI_QUEUES_MAX];
	uint8_t config[VIRTIO_DEV_CONFIG_MAX];
	bool refuse_queues;
	unsigned int resets, driver_oks, config_reads;
	uint64_t ok_features;
};

struct msi {
	uint64_t address;
	uint32_t data;
};

/* What a driver learns from the capability list. */
struct region {
	bool found;
	unsigned int pos;	/* the capability's config-space offset */
	uint8_t bar;
	uint32_t offset, length;
};

struct probe {
	struct region cap[PCI_CAP_SLOTS];
	uint32_t notify_multiplier;
	unsigned int msix_pos, count;
};

struct fixture {
	struct vpci_bus bus;
	struct vpci_device bridge;
	struct virtio_pci fn;
	struct fake_device dev;
	struct msi msi[64];
	unsigned int msis;
	struct probe probe;
};

static struct guest_mem guest_ram;

/* One reservation for every fixture: rings above 4 GiB need the RAM to reach there. */
static const struct guest_mem *guest_ram_get(void)
{
	if (!guest_ram.base) {
		void *p = mmap(NULL, GUEST_RAM, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		assert_true(p != MAP_FAILED);
		guest_ram = (struct guest_mem){ .base = p, .size = GUEST_RAM };
	}
	return &guest_ram;
}

static struct fake_device *to_fake(const struct virtio_dev *vdev)
{
	struct fixture *f = vdev->ctx;

	return &f->dev;
}

static struct virtq *fake_queue(struct virtio_dev *vdev, unsigned int index)
{
	struct fake_device *d = to_fake(vdev);

	return d->refuse_queues ? NULL : &d->queue[index];
}

static void fake_config(const struct virtio_dev *vdev, void *bytes)
{
	struct fake_device *d = to_fake(vdev);

	d->config_reads++;
	memcpy(bytes, d->config, vdev->ops->config_size);
}

static void fake_start(struct virtio_dev *vdev)
{
	struct fake_device *d = to_fake(vdev);

	d->driver_oks++;
	d->ok_features = vdev->features;
}

static void fake_reset(struct virtio_dev *vdev)
{
	to_fake(vdev)->resets++;
}

/* What the glue does with the model's interrupts (hv/guest/guest_virtio.c). */
static void fake_interrupt(struct virtio_dev *vdev, unsigned int source)
{
	struct fixture *f = vdev->ctx;

	virtio_pci_dev_interrupt(&f->fn, source);
}

/* How many queues the model has enabled. */
static unsigned int enabled_queues(const struct fixture *f)
{
	unsigned int n = 0;

	for (unsigned int q = 0; q < f->dev.vdev.num_queues; q++)
		n += f->dev.queue[q].ready;
	return n;
}

static uint64_t gpa_of(const void *p)
{
	return (uint64_t)((const uint8_t *)p - guest_ram.base);
}

static void assert_queue(const struct fixture *f, unsigned int q, uint32_t size, uint64_t desc,
			 uint64_t driver, uint64_t device)
{
	const struct virtq *vq = &f->dev.queue[q];

	assert_true(vq->ready);
	assert_int_equal(vq->size, size);
	assert_int_equal(gpa_of(vq->desc), desc);
	assert_int_equal(gpa_of(vq->avail), driver);
	assert_int_equal(gpa_of(vq->used), device);
}

static void record_msi(void *ctx, uint64_t address, uint32_t data)
{
	struct fixture *f = ctx;

	assert_true(f->msis < 64);
	f->msi[f->msis++] = (struct msi){ address, data };
}

static const struct virtio_dev_ops net_ops = {
	.kind = "fake-net",
	.device_id = VIRTIO_ID_NET,
	.queue_size_max = QUEUE_MAX,
	.config_size = CONFIG_SIZE,
	.size = sizeof(struct fake_device),
	.queue = fake_queue,
	.config = fake_config,
	.start = fake_start,
	.reset = fake_reset,
};

/* A fake model as its init would set it up: the core's part, then its queues. */
static void fake_init(struct fixture *f, const struct virtio_dev_ops *ops, uint64_t features,
		      unsigned int num_queues)
{
	struct fake_device *d = &f->dev;
	struct virtio_dev_params params = { .name = "test", .mem = guest_ram_get(),
					    .interrupt = fake_interrupt, .ctx = f };

	memset(d, 0, sizeof(*d));
	d->ops = *ops;
	for (unsigned int i = 0; i < sizeof(d->config); i++)
		d->config[i] = (uint8_t)(0x50 + i);
	assert_true(virtio_dev_init(&d->vdev, &d->ops, &params, features, num_queues));
	for (unsigned int q = 0; q < num_queues; q++)
		virtq_init(&d->queue[q], params.mem, params.name, q);
}

/* --- config space and BAR access, as the guest does them ------------------- */

static uint32_t cfg_read(struct fixture *f, unsigned int reg, unsigned int size)
{
	return vpci_ecam_read(&f->bus, SLOT << 15 | reg, size);
}

static void cfg_write(struct fixture *f, unsigned int reg, unsigned int size, uint32_t value)
{
	vpci_ecam_write(&f->bus, SLOT << 15 | reg, size, value);
}

static uint64_t mmio_read(struct fixture *f, uint64_t gpa, unsigned int size)
{
	uint64_t offset;

	assert_true(virtio_pci_bar_decode(&f->fn, gpa, size, &offset));
	return virtio_pci_bar_read(&f->fn, offset, size);
}

static int mmio_write(struct fixture *f, uint64_t gpa, unsigned int size, uint64_t value)
{
	uint64_t offset;

	assert_true(virtio_pci_bar_decode(&f->fn, gpa, size, &offset));
	return virtio_pci_bar_write(&f->fn, offset, size, value);
}

/* The capability list, walked like virtio_pci_find_capability() does. */
static void probe_caps(struct fixture *f, struct probe *p)
{
	unsigned int pos;

	memset(p, 0, sizeof(*p));
	assert_true(cfg_read(f, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST);
	pos = cfg_read(f, PCI_CAPABILITY_LIST, 1) & ~3u;
	for (unsigned int ttl = PCI_FIND_CAP_TTL; pos >= 0x40 && ttl; ttl--) {
		uint8_t id = (uint8_t)cfg_read(f, pos + PCI_CAP_LIST_ID, 1);

		p->count++;
		if (id == PCI_CAP_ID_MSIX)
			p->msix_pos = pos;
		if (id == PCI_CAP_ID_VNDR) {
			uint8_t type = (uint8_t)cfg_read(f, pos + VIRTIO_PCI_CAP_CFG_TYPE, 1);

			assert_in_range(type, VIRTIO_PCI_CAP_COMMON_CFG, VIRTIO_PCI_CAP_PCI_CFG);
			assert_false(p->cap[type].found);	/* one of each */
			p->cap[type] = (struct region){
				.found = true,
				.pos = pos,
				.bar = (uint8_t)cfg_read(f, pos + VIRTIO_PCI_CAP_BAR, 1),
				.offset = cfg_read(f, pos + VIRTIO_PCI_CAP_OFFSET, 4),
				.length = cfg_read(f, pos + VIRTIO_PCI_CAP_LENGTH, 4),
			};
			if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
				p->notify_multiplier =
					cfg_read(f, pos + VIRTIO_PCI_NOTIFY_CAP_MULT, 4);
		}
		pos = cfg_read(f, pos + PCI_CAP_LIST_NEXT, 1) & ~3u;
	}
	assert_int_equal(pos, 0);	/* the list ends */
}

static uint64_t common_gpa(struct fixture *f, unsigned int field)
{
	return virtio_pci_bar_address(&f->fn) + f->probe.cap[VIRTIO_PCI_CAP_COMMON_CFG].offset +
	       field;
}

static uint32_t common_read(struct fixture *f, unsigned int field, unsigned int size)
{
	return (uint32_t)mmio_read(f, common_gpa(f, field), size);
}

static void common_write(struct fixture *f, unsigned int field, unsigned int size,
			 uint32_t value)
{
	assert_int_equal(mmio_write(f, common_gpa(f, field), size, value), VIRTIO_PCI_NO_NOTIFY);
}

static uint8_t status(struct fixture *f)
{
	return (uint8_t)common_read(f, VIRTIO_PCI_COMMON_STATUS, 1);
}

/* virtio_add_status(): read, or in the bit, write back. */
static void add_status(struct fixture *f, uint8_t bit)
{
	common_write(f, VIRTIO_PCI_COMMON_STATUS, 1, status(f) | bit);
}

static uint64_t msix_table_gpa(struct fixture *f, unsigned int vector)
{
	uint32_t table = cfg_read(f, f->probe.msix_pos + PCI_MSIX_TABLE, 4);

	assert_int_equal(table & PCI_MSIX_TABLE_BIR, 0);
	return virtio_pci_bar_address(&f->fn) + (table & PCI_MSIX_TABLE_OFFSET) +
	       vector * PCI_MSIX_ENTRY_SIZE;
}

static uint32_t msix_pba(struct fixture *f)
{
	uint32_t pba = cfg_read(f, f->probe.msix_pos + PCI_MSIX_PBA, 4);

	return (uint32_t)mmio_read(f, virtio_pci_bar_address(&f->fn) +
				   (pba & PCI_MSIX_PBA_OFFSET), 4);
}

static void msix_control_write(struct fixture *f, uint16_t set, uint16_t clear)
{
	unsigned int reg = f->probe.msix_pos + PCI_MSIX_FLAGS;

	cfg_write(f, reg, 2, (cfg_read(f, reg, 2) | set) & ~clear);
}

/*
 * msix_capability_init(): enable with every vector masked by the function
 * mask, program the entries, then lift the function mask.
 */
static void msix_setup(struct fixture *f, unsigned int vectors)
{
	msix_control_write(f, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL, 0);
	for (unsigned int v = 0; v < vectors; v++) {
		uint64_t entry = msix_table_gpa(f, v);

		mmio_write(f, entry + PCI_MSIX_ENTRY_LOWER_ADDR, 4, MSI_ADDRESS | v << 12);
		mmio_write(f, entry + PCI_MSIX_ENTRY_UPPER_ADDR, 4, 0);
		mmio_write(f, entry + PCI_MSIX_ENTRY_DATA, 4, MSI_VECTOR_BASE + v);
		mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 0);
	}
	msix_control_write(f, 0, PCI_MSIX_FLAGS_MASKALL);
}

static uint64_t ring_gpa(unsigned int queue, unsigned int part)
{
	/* Queue 0 sits above 4 GiB so the high halves matter. */
	return (queue ? 0x00200000ull : 0x100200000ull) + queue * 0x10000ull + part * 0x1000ull;
}

/* vp_modern setup_vq(): check, size, rings, notify offset, vector. */
static void queue_setup(struct fixture *f, unsigned int queue, uint16_t size, uint16_t vector)
{
	const struct region *notify = &f->probe.cap[VIRTIO_PCI_CAP_NOTIFY_CFG];
	uint32_t notify_off;

	common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, queue);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SIZE, 2), QUEUE_MAX);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2), 0);
	common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, size);
	common_write(f, VIRTIO_PCI_COMMON_Q_DESCLO, 4, (uint32_t)ring_gpa(queue, 0));
	common_write(f, VIRTIO_PCI_COMMON_Q_DESCHI, 4, (uint32_t)(ring_gpa(queue, 0) >> 32));
	common_write(f, VIRTIO_PCI_COMMON_Q_AVAILLO, 4, (uint32_t)ring_gpa(queue, 1));
	common_write(f, VIRTIO_PCI_COMMON_Q_AVAILHI, 4, (uint32_t)(ring_gpa(queue, 1) >> 32));
	common_write(f, VIRTIO_PCI_COMMON_Q_USEDLO, 4, (uint32_t)ring_gpa(queue, 2));
	common_write(f, VIRTIO_PCI_COMMON_Q_USEDHI, 4, (uint32_t)(ring_gpa(queue, 2) >> 32));
	notify_off = common_read(f, VIRTIO_PCI_COMMON_Q_NOFF, 2);
	assert_true((uint64_t)notify_off * f->probe.notify_multiplier + 2 <= notify->length);
	common_write(f, VIRTIO_PCI_COMMON_Q_MSIX, 2, vector);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_MSIX, 2), vector);
}

static uint64_t device_features(struct fixture *f)
{
	common_write(f, VIRTIO_PCI_COMMON_DFSELECT, 4, 0);
	uint64_t lo = common_read(f, VIRTIO_PCI_COMMON_DF, 4);

	common_write(f, VIRTIO_PCI_COMMON_DFSELECT, 4, 1);
	return lo | (uint64_t)common_read(f, VIRTIO_PCI_COMMON_DF, 4) << 32;
}

static void driver_features_write(struct fixture *f, uint64_t features)
{
	common_write(f, VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
	common_write(f, VIRTIO_PCI_COMMON_GF, 4, (uint32_t)features);
	common_write(f, VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
	common_write(f, VIRTIO_PCI_COMMON_GF, 4, (uint32_t)(features >> 32));
}

/* Reset, ACKNOWLEDGE, DRIVER, features, FEATURES_OK: §3.1.1 steps 1-6. */
static void driver_negotiate(struct fixture *f, uint64_t features)
{
	common_write(f, VIRTIO_PCI_COMMON_STATUS, 1, 0);
	assert_int_equal(status(f), 0);	/* vp_reset() waits for this */
	add_status(f, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	add_status(f, VIRTIO_CONFIG_S_DRIVER);
	assert_int_equal(device_features(f) & features, features);
	driver_features_write(f, features);
	add_status(f, VIRTIO_CONFIG_S_FEATURES_OK);
	assert_true(status(f) & VIRTIO_CONFIG_S_FEATURES_OK);
}

/* The whole sequence with one MSI-X vector per queue plus the config vector. */
static void driver_init(struct fixture *f)
{
	driver_negotiate(f, VERSION_1 | NET_FEATURES);
	msix_setup(f, NET_QUEUES + 1);
	common_write(f, VIRTIO_PCI_COMMON_MSIX, 2, 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_MSIX, 2), 0);
	for (unsigned int q = 0; q < NET_QUEUES; q++)
		queue_setup(f, q, QUEUE_MAX / 2, (uint16_t)(q + 1));
	for (unsigned int q = 0; q < NET_QUEUES; q++) {
		common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, q);
		common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	}
	add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
}

static int fixture_setup_dev(void **state, const struct virtio_dev_ops *ops, uint64_t features,
			     unsigned int num_queues)
{
	struct fixture *f = test_calloc(1, sizeof(*f));

	if (!f)
		return -1;
	fake_init(f, ops, features, num_queues);
	vpci_bus_init(&f->bus);
	vpci_host_bridge_init(&f->bridge);
	if (!virtio_pci_init(&f->fn, &f->dev.vdev, record_msi, f, BAR_GPA) ||
	    !vpci_bus_add(&f->bus, 0, &f->bridge) || !vpci_bus_add(&f->bus, SLOT, &f->fn.pci))
		return -1;
	/* pci_enable_device(): memory decoding on. */
	cfg_write(f, PCI_COMMAND, 2, cfg_read(f, PCI_COMMAND, 2) | PCI_COMMAND_MEMORY);
	probe_caps(f, &f->probe);
	*state = f;
	return 0;
}

static int fixture_setup(void **state)
{
	return fixture_setup_dev(state, &net_ops, NET_FEATURES, NET_QUEUES);
}

static int fixture_setup_vsock(void **state)
{
	struct virtio_dev_ops ops = net_ops;

	ops.device_id = VIRTIO_ID_VSOCK;
	return fixture_setup_dev(state, &ops, NET_FEATURES, NET_QUEUES);
}

static int fixture_setup_no_config(void **state)
{
	struct virtio_dev_ops ops = net_ops;

	ops.config_size = 0;
	return fixture_setup_dev(state, &ops, NET_FEATURES, NET_QUEUES);
}

static int fixture_setup_largest(void **state)
{
	return fixture_setup_dev(state, &net_ops, NET_FEATURES, VIRTIO_PCI_QUEUES_MAX);
}

static int fixture_setup_multiqueue(void **state)
{
	return fixture_setup_dev(state, &net_ops, MQ_FEATURES, MQ_QUEUES);
}

static int fixture_teardown(void **state)
{
	test_free(*state);
	return 0;
}

/* --- identity and capabilities ---------------------------------------------- */

static void test_identity_net(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(cfg_read(f, PCI_VENDOR_ID, 2), 0x1af4);
	assert_int_equal(cfg_read(f, PCI_DEVICE_ID, 2), 0x1041);
	assert_int_equal(cfg_read(f, PCI_REVISION_ID, 1), 1);
	assert_int_equal(cfg_read(f, PCI_CLASS_REVISION, 4) >> 8, 0x020000);
	assert_int_equal(cfg_read(f, PCI_SUBSYSTEM_VENDOR_ID, 2), 0x1af4);
	assert_true(cfg_read(f, PCI_SUBSYSTEM_ID, 2) >= 0x40);	/* §4.1.2.1 */
	assert_int_equal(cfg_read(f, PCI_HEADER_TYPE, 1), PCI_HEADER_TYPE_NORMAL);
	assert_int_equal(cfg_read(f, PCI_INTERRUPT_PIN, 1), 0);	/* no INTx */
	/* CF8/CFC sees the same function. */
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4, 1u << 31 | SLOT << 11);
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_DATA_PORT, 4), 0x10411af4);
}

static void test_identity_vsock(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(cfg_read(f, PCI_DEVICE_ID, 2), 0x1053);
	assert_int_equal(cfg_read(f, PCI_CLASS_DEVICE, 2), 0xff00);
}

static void test_capabilities(void **state)
{
	struct fixture *f = *state;
	const struct probe *p = &f->probe;
	const struct region *common = &p->cap[VIRTIO_PCI_CAP_COMMON_CFG];
	const struct region *notify = &p->cap[VIRTIO_PCI_CAP_NOTIFY_CFG];
	const struct region *isr = &p->cap[VIRTIO_PCI_CAP_ISR_CFG];
	const struct region *device = &p->cap[VIRTIO_PCI_CAP_DEVICE_CFG];
	uint32_t table, pba;

	for (unsigned int type = VIRTIO_PCI_CAP_COMMON_CFG; type <= VIRTIO_PCI_CAP_PCI_CFG;
	     type++) {
		const struct region *r = &p->cap[type];

		assert_true(r->found);
		assert_int_equal(r->pos % 4, 0);
		assert_int_equal(r->bar, 0);
		assert_true((uint64_t)r->offset + r->length <= VIRTIO_PCI_BAR_SIZE);
		assert_true(cfg_read(f, r->pos + VIRTIO_PCI_CAP_LEN, 1) >=
			    sizeof(struct virtio_pci_cap));
	}
	/* vp_modern_probe(): minimum lengths and alignments. */
	assert_true(common->length >= sizeof(struct virtio_pci_common_cfg));
	assert_int_equal(common->offset % 4, 0);
	assert_true(isr->length >= 1);
	assert_int_equal(device->length, CONFIG_SIZE);
	assert_int_equal(device->offset % 4, 0);
	assert_int_equal(notify->offset % 2, 0);
	assert_int_equal(p->notify_multiplier % 2, 0);
	assert_true((NET_QUEUES - 1) * p->notify_multiplier + 2 <= notify->length);
	assert_int_equal(cfg_read(f, notify->pos + VIRTIO_PCI_CAP_LEN, 1),
			 sizeof(struct virtio_pci_notify_cap));
	assert_int_equal(cfg_read(f, p->cap[VIRTIO_PCI_CAP_PCI_CFG].pos + VIRTIO_PCI_CAP_LEN, 1),
			 sizeof(struct virtio_pci_cfg_cap));

	/* MSI-X: a vector per queue plus config; table and PBA alone in their page. */
	assert_true(p->msix_pos);
	assert_int_equal(cfg_read(f, p->msix_pos + PCI_MSIX_FLAGS, 2), NET_QUEUES);
	table = cfg_read(f, p->msix_pos + PCI_MSIX_TABLE, 4);
	pba = cfg_read(f, p->msix_pos + PCI_MSIX_PBA, 4);
	assert_int_equal(table & PCI_MSIX_TABLE_BIR, 0);
	assert_int_equal(pba & PCI_MSIX_PBA_BIR, 0);
	assert_true(table + (NET_QUEUES + 1) * PCI_MSIX_ENTRY_SIZE <= pba);
	assert_true(pba + 8 <= VIRTIO_PCI_BAR_SIZE);
	for (unsigned int type = VIRTIO_PCI_CAP_COMMON_CFG; type < VIRTIO_PCI_CAP_PCI_CFG; type++)
		assert_true((p->cap[type].offset + p->cap[type].length - 1) / 4096 != table / 4096);
	assert_int_equal(table / 4096, pba / 4096);
	assert_int_equal(p->count, 6);
}

static void test_no_device_cap_without_config(void **state)
{
	struct fixture *f = *state;

	assert_false(f->probe.cap[VIRTIO_PCI_CAP_DEVICE_CFG].found);
	assert_true(f->probe.cap[VIRTIO_PCI_CAP_COMMON_CFG].found);
	assert_true(f->probe.msix_pos);
	assert_int_equal(f->probe.count, 5);
	/* Where the device config would be, nothing answers. */
	assert_int_equal(virtio_pci_bar_read(&f->fn, 0x1000, 4), 0);
	assert_int_equal(f->dev.config_reads, 0);
}

static void test_capabilities_read_only(void **state)
{
	struct fixture *f = *state;
	uint8_t before[PCI_CFG_SPACE_SIZE];
	unsigned int window = f->probe.cap[VIRTIO_PCI_CAP_PCI_CFG].pos;

	memcpy(before, f->fn.pci.config, sizeof(before));
	for (unsigned int reg = 0x40; reg < PCI_CFG_SPACE_SIZE; reg += 4)
		cfg_write(f, reg, 4, 0xffffffff);
	for (unsigned int reg = 0x40; reg < PCI_CFG_SPACE_SIZE; reg++) {
		bool writable = (reg >= window + VIRTIO_PCI_CAP_BAR &&
				 reg < window + VIRTIO_PCI_CAP_BAR + 1) ||
				(reg >= window + VIRTIO_PCI_CAP_OFFSET &&
				 reg < window + sizeof(struct virtio_pci_cfg_cap)) ||
				reg == f->probe.msix_pos + PCI_MSIX_FLAGS + 1;

		if (!writable)
			assert_int_equal(f->fn.pci.config[reg], before[reg]);
	}
	assert_int_equal(cfg_read(f, f->probe.msix_pos + PCI_MSIX_FLAGS, 2),
			 PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL | NET_QUEUES);
}

/* --- the BAR ----------------------------------------------------------------- */

static void test_bar_sizing_and_moving(void **state)
{
	struct fixture *f = *state;
	uint64_t moved = BAR_GPA + 0x10000;
	uint32_t lo, hi, mask;

	assert_int_equal(virtio_pci_bar_address(&f->fn), BAR_GPA);
	/* __pci_read_base(): decoding off, all ones, read the mask, restore. */
	cfg_write(f, PCI_COMMAND, 2, cfg_read(f, PCI_COMMAND, 2) & ~PCI_COMMAND_MEMORY);
	lo = cfg_read(f, PCI_BASE_ADDRESS_0, 4);
	hi = cfg_read(f, PCI_BASE_ADDRESS_1, 4);
	assert_int_equal(lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK, PCI_BASE_ADDRESS_MEM_TYPE_64);
	cfg_write(f, PCI_BASE_ADDRESS_0, 4, 0xffffffff);
	cfg_write(f, PCI_BASE_ADDRESS_1, 4, 0xffffffff);
	mask = cfg_read(f, PCI_BASE_ADDRESS_0, 4) & (uint32_t)PCI_BASE_ADDRESS_MEM_MASK;
	assert_int_equal((uint32_t)(~mask + 1), VIRTIO_PCI_BAR_SIZE);
	assert_int_equal(cfg_read(f, PCI_BASE_ADDRESS_1, 4), 0xffffffff);
	cfg_write(f, PCI_BASE_ADDRESS_0, 4, lo);
	cfg_write(f, PCI_BASE_ADDRESS_1, 4, hi);
	assert_int_equal(virtio_pci_bar_address(&f->fn), BAR_GPA);

	/* The guest moves it; a misaligned address keeps the size alignment. */
	cfg_write(f, PCI_BASE_ADDRESS_0, 4, (uint32_t)moved + 0x123);
	assert_int_equal(virtio_pci_bar_address(&f->fn), moved);
	assert_false(virtio_pci_bar_enabled(&f->fn));
	cfg_write(f, PCI_COMMAND, 2, cfg_read(f, PCI_COMMAND, 2) | PCI_COMMAND_MEMORY);
	assert_true(virtio_pci_bar_enabled(&f->fn));
	assert_int_equal(mmio_read(f, moved + f->probe.cap[VIRTIO_PCI_CAP_COMMON_CFG].offset +
				   VIRTIO_PCI_COMMON_NUMQ, 2), NET_QUEUES);
}

static void test_bar_decode(void **state)
{
	struct fixture *f = *state;
	uint64_t offset = 0x1234;

	assert_true(virtio_pci_bar_decode(&f->fn, BAR_GPA, 4, &offset));
	assert_int_equal(offset, 0);
	assert_true(virtio_pci_bar_decode(&f->fn, BAR_GPA + VIRTIO_PCI_BAR_SIZE - 8, 8, &offset));
	assert_int_equal(offset, VIRTIO_PCI_BAR_SIZE - 8);
	assert_false(virtio_pci_bar_decode(&f->fn, BAR_GPA + VIRTIO_PCI_BAR_SIZE - 4, 8, &offset));
	assert_false(virtio_pci_bar_decode(&f->fn, BAR_GPA + VIRTIO_PCI_BAR_SIZE, 1, &offset));
	assert_false(virtio_pci_bar_decode(&f->fn, BAR_GPA - 1, 1, &offset));
	assert_false(virtio_pci_bar_decode(&f->fn, UINT64_MAX, 8, &offset));
	/* While sizing (all ones in the BAR) nothing wraps. */
	cfg_write(f, PCI_BASE_ADDRESS_0, 4, 0xffffffff);
	cfg_write(f, PCI_BASE_ADDRESS_1, 4, 0xffffffff);
	assert_false(virtio_pci_bar_decode(&f->fn, 0, 4, &offset));
	assert_true(virtio_pci_bar_decode(&f->fn, UINT64_MAX - 3, 4, &offset));
	assert_int_equal(offset, VIRTIO_PCI_BAR_SIZE - 4);
	/* Decoding off: nothing is claimed. */
	cfg_write(f, PCI_COMMAND, 2, 0);
	assert_false(virtio_pci_bar_decode(&f->fn, UINT64_MAX - 3, 4, &offset));
}

/* --- feature negotiation (§2.2, §3.1.1) --------------------------------------- */

static void test_features_offered(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(device_features(f), NET_FEATURES | VERSION_1);
	common_write(f, VIRTIO_PCI_COMMON_DFSELECT, 4, 2);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_DF, 4), 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_DFSELECT, 4), 2);
	common_write(f, VIRTIO_PCI_COMMON_DFSELECT, 4, 0xffffffff);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_DF, 4), 0);
}

static void test_features_accepted(void **state)
{
	struct fixture *f = *state;
	uint64_t features = VERSION_1 | 1ull << VIRTIO_NET_F_MAC;

	driver_negotiate(f, features);
	assert_int_equal(virtio_pci_driver_features(&f->fn), features);
	common_write(f, VIRTIO_PCI_COMMON_GFSELECT, 4, 1);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_GF, 4), 1);
	/* Frozen once accepted. */
	common_write(f, VIRTIO_PCI_COMMON_GF, 4, 0);
	common_write(f, VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
	common_write(f, VIRTIO_PCI_COMMON_GF, 4, 0xffffffff);
	assert_int_equal(virtio_pci_driver_features(&f->fn), features);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FEATURES_OK);
}

static void refused(struct fixture *f, uint64_t features)
{
	common_write(f, VIRTIO_PCI_COMMON_STATUS, 1, 0);
	add_status(f, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	add_status(f, VIRTIO_CONFIG_S_DRIVER);
	driver_features_write(f, features);
	add_status(f, VIRTIO_CONFIG_S_FEATURES_OK);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	assert_int_equal(virtio_pci_driver_features(&f->fn), 0);
	/* virtio_features_ok() gives up: FAILED, then nothing more happens. */
	add_status(f, VIRTIO_CONFIG_S_FAILED);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FAILED);
	assert_int_equal(f->dev.driver_oks, 0);
}

static void test_features_refused(void **state)
{
	struct fixture *f = *state;

	refused(f, VERSION_1 | 1ull << VIRTIO_NET_F_CSUM);	/* not offered */
	refused(f, VERSION_1 | 1ull << 63);
	refused(f, NET_FEATURES);			/* legacy driver */
	refused(f, 1ull << VIRTIO_NET_F_MAC);
}

/* A model's own rule: STATUS only along with MAC (§2.2). */
static bool status_needs_mac(const struct virtio_dev *dev, uint64_t features)
{
	(void)dev;
	return !(features & 1ull << VIRTIO_NET_F_STATUS) || (features & 1ull << VIRTIO_NET_F_MAC);
}

/*
 * §3.1.1 steps 5-6: the device judges the set at FEATURES_OK by the model's
 * rules too, so a driver reading the status back learns it at once, and the
 * model never starts on a set it refused.
 */
static void test_features_model_rule(void **state)
{
	struct fixture *f = *state;
	uint64_t kept = VERSION_1 | 1ull << VIRTIO_NET_F_MAC | 1ull << VIRTIO_NET_F_STATUS;

	f->dev.ops.features_ok = status_needs_mac;
	refused(f, VERSION_1 | 1ull << VIRTIO_NET_F_STATUS);
	assert_int_equal(f->dev.vdev.features, 0);
	driver_negotiate(f, kept);
	assert_int_equal(f->dev.vdev.features, kept);
}

/*
 * A driver that goes on after its features were refused does not get a live
 * device (§3.1.1 step 6): not with DRIVER_OK, and not with better features
 * and FEATURES_OK again. The device needs a reset and says so, naming the guest.
 */
static void test_driver_ok_after_refused_features(void **state)
{
	struct fixture *f = *state;
	char log[256];

	add_status(f, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	add_status(f, VIRTIO_CONFIG_S_DRIVER);
	driver_features_write(f, VERSION_1 | 1ull << VIRTIO_NET_F_CSUM);	/* not offered */
	add_status(f, VIRTIO_CONFIG_S_FEATURES_OK);
	driver_features_write(f, VERSION_1);
	stderr_capture_begin();
	add_status(f, VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio-pci test: DRIVER_OK without accepted features"));
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_NEEDS_RESET);
	assert_int_equal(virtio_pci_driver_features(&f->fn), 0);
	assert_int_equal(f->dev.driver_oks, 0);
	/* Said once; the state stays until a reset, which brings the device back. */
	stderr_capture_begin();
	add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
	assert_string_equal(stderr_capture_end(log, sizeof(log)), "");
	assert_int_equal(f->dev.driver_oks, 0);
	driver_init(f);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK);
	assert_int_equal(f->dev.driver_oks, 1);
}

/* A guest's bucket on a clock the test moves: one tick per bad write. */
struct bucket {
	struct ratelimit rl;
	uint64_t now;
	unsigned int allowed;
};

static bool bucket_allow(void *ctx)
{
	struct bucket *b = ctx;
	uint64_t suppressed;

	if (!ratelimit_allow(&b->rl, b->now, &suppressed))
		return false;
	b->allowed++;
	return true;
}

static unsigned int count_lines(const char *text)
{
	unsigned int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

#define BAD_WRITES	100000
#define BUCKET_BURST	16
#define BUCKET_TICKS	1000	/* per token */

/*
 * 100,000 writes the transport refuses with a line (DRIVER_OK without
 * FEATURES_OK, a queue enabled on a misaligned ring), each after a reset so
 * that none is the repeat the transport stays quiet about: the lines that
 * come out are exactly those the guest's bucket allows, its burst and one a
 * refill, not one a write.
 */
static void test_bad_writes_pass_the_bucket(void **state)
{
	static char log[64 * 1024];
	struct fixture *f = *state;
	struct bucket b = { .now = 1 };
	struct log_gate gate = { bucket_allow, &b };
	unsigned int lines, limit = BUCKET_BURST + BAD_WRITES / BUCKET_TICKS + 1;

	ratelimit_init(&b.rl, BUCKET_BURST, BUCKET_TICKS, b.now);
	virtio_pci_set_log_gate(&f->fn, &gate);
	stderr_capture_begin();
	for (unsigned int i = 0; i < BAD_WRITES; i++, b.now++) {
		common_write(f, VIRTIO_PCI_COMMON_STATUS, 1, 0);
		add_status(f, VIRTIO_CONFIG_S_ACKNOWLEDGE);
		add_status(f, VIRTIO_CONFIG_S_DRIVER);
		if (i % 2) {
			add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
			continue;
		}
		driver_features_write(f, VERSION_1);
		add_status(f, VIRTIO_CONFIG_S_FEATURES_OK);
		common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, 0);
		common_write(f, VIRTIO_PCI_COMMON_Q_DESCLO, 4, 0x1008);
		common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	}
	lines = count_lines(stderr_capture_end(log, sizeof(log)));
	assert_true(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET);
	assert_int_equal(lines, b.allowed);
	assert_true(lines >= BUCKET_BURST);
	assert_true(lines <= limit);
	assert_int_equal(f->dev.driver_oks, 0);
}

/* Each refused ring names its reason along with the guest. */
static void test_queue_refusal_reasons(void **state)
{
	static const struct {
		unsigned int field;
		uint32_t value;
		const char *reason;
	} bad[] = {
		{ VIRTIO_PCI_COMMON_Q_DESCLO, 0x1008, "descriptor table not 16-byte aligned" },
		{ VIRTIO_PCI_COMMON_Q_AVAILLO, 0x2001, "driver ring not 2-byte aligned" },
		{ VIRTIO_PCI_COMMON_Q_USEDLO, 0x3002, "device ring not 4-byte aligned" },
	};
	struct fixture *f = *state;
	char log[512];

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		driver_negotiate(f, VERSION_1);
		queue_setup(f, 0, QUEUE_MAX, VIRTIO_MSI_NO_VECTOR);
		common_write(f, bad[i].field, 4, bad[i].value);
		stderr_capture_begin();
		common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
		stderr_capture_end(log, sizeof(log));
		assert_non_null(strstr(log, "virtio-pci test: "));
		assert_non_null(strstr(log, bad[i].reason));
		assert_true(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET);
	}
	/* Aligned rings the device refuses say so. */
	f->dev.refuse_queues = true;
	driver_negotiate(f, VERSION_1);
	queue_setup(f, 0, QUEUE_MAX, VIRTIO_MSI_NO_VECTOR);
	stderr_capture_begin();
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "queue 0 refused: refused by the device"));
}

/* Words past 1 hold no offered bit: the device drops them, FEATURES_OK stands. */
static void test_unoffered_high_words_dropped(void **state)
{
	struct fixture *f = *state;

	add_status(f, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	add_status(f, VIRTIO_CONFIG_S_DRIVER);
	driver_features_write(f, VERSION_1);
	common_write(f, VIRTIO_PCI_COMMON_GFSELECT, 4, 2);
	common_write(f, VIRTIO_PCI_COMMON_GF, 4, 0xffffffff);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_GF, 4), 0);
	add_status(f, VIRTIO_CONFIG_S_FEATURES_OK);
	assert_true(status(f) & VIRTIO_CONFIG_S_FEATURES_OK);
	assert_int_equal(virtio_pci_driver_features(&f->fn), VERSION_1);
}

static void test_status_rules(void **state)
{
	struct fixture *f = *state;

	char log[256];

	/* The driver cannot set DEVICE_NEEDS_RESET or reserved bits. */
	add_status(f, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	add_status(f, VIRTIO_CONFIG_S_NEEDS_RESET | 0x30);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE);
	/* FEATURES_OK needs DRIVER. */
	driver_features_write(f, VERSION_1);
	add_status(f, VIRTIO_CONFIG_S_FEATURES_OK);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE);
	/* Bits are never cleared but by a reset. */
	add_status(f, VIRTIO_CONFIG_S_DRIVER);
	common_write(f, VIRTIO_PCI_COMMON_STATUS, 1, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	/* DRIVER_OK needs FEATURES_OK: without, the device needs a reset. */
	stderr_capture_begin();
	add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
	stderr_capture_end(log, sizeof(log));
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_NEEDS_RESET);
	assert_int_equal(f->dev.driver_oks, 0);
	assert_int_equal(f->dev.resets, 0);
}

/* --- the driver's whole sequence ---------------------------------------------- */

static void test_linux_init_sequence(void **state)
{
	struct fixture *f = *state;
	const struct region *notify = &f->probe.cap[VIRTIO_PCI_CAP_NOTIFY_CFG];

	driver_init(f);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK);
	assert_int_equal(f->dev.resets, 1);
	assert_int_equal(f->dev.driver_oks, 1);
	assert_int_equal(f->dev.ok_features, VERSION_1 | NET_FEATURES);
	assert_int_equal(enabled_queues(f), NET_QUEUES);
	for (unsigned int q = 0; q < NET_QUEUES; q++) {
		assert_queue(f, q, QUEUE_MAX / 2, ring_gpa(q, 0), ring_gpa(q, 1), ring_gpa(q, 2));
		common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, q);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2), 1);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_DESCHI, 4),
				 ring_gpa(q, 0) >> 32);
	}
	assert_int_equal(f->msis, 0);

	/* vp_notify(): a 16-bit write of the queue index at its slot. */
	for (unsigned int q = 0; q < NET_QUEUES; q++) {
		uint32_t off;

		common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, q);
		off = common_read(f, VIRTIO_PCI_COMMON_Q_NOFF, 2);
		assert_int_equal(mmio_write(f, virtio_pci_bar_address(&f->fn) + notify->offset +
					    off * f->probe.notify_multiplier, 2, q), (int)q);
	}
	assert_int_equal(f->fn.kicks, NET_QUEUES);

	/* A used-buffer notification for queue 1 arrives on vector 2. */
	virtio_pci_interrupt(&f->fn, 1);
	assert_int_equal(f->msis, 1);
	assert_int_equal(f->msi[0].address, MSI_ADDRESS | 2 << 12);
	assert_int_equal(f->msi[0].data, MSI_VECTOR_BASE + 2);
	assert_int_equal(mmio_read(f, virtio_pci_bar_address(&f->fn) +
				   f->probe.cap[VIRTIO_PCI_CAP_ISR_CFG].offset, 1), 0);
}

static void test_queue_fields(void **state)
{
	struct fixture *f = *state;

	driver_negotiate(f, VERSION_1);
	common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, 1);
	/* Sizes: a power of two no larger than the maximum, else unchanged. */
	common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, 100);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SIZE, 2), QUEUE_MAX);
	common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, QUEUE_MAX * 2);
	common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SIZE, 2), QUEUE_MAX);
	common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, 1);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SIZE, 2), 1);
	common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, 64);
	/* A 64-bit address in one 8-byte access, as two halves. */
	assert_int_equal(mmio_write(f, common_gpa(f, VIRTIO_PCI_COMMON_Q_DESCLO), 8,
				    0x123456789abcdef0ull), VIRTIO_PCI_NO_NOTIFY);
	assert_int_equal(mmio_read(f, common_gpa(f, VIRTIO_PCI_COMMON_Q_DESCLO), 8),
			 0x123456789abcdef0ull);
	common_write(f, VIRTIO_PCI_COMMON_Q_DESCLO, 4, 0x3000);
	common_write(f, VIRTIO_PCI_COMMON_Q_DESCHI, 4, 0);
	common_write(f, VIRTIO_PCI_COMMON_Q_AVAILLO, 4, 0x4002);
	common_write(f, VIRTIO_PCI_COMMON_Q_USEDLO, 4, 0x5004);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_NOFF, 2), 1);
	common_write(f, VIRTIO_PCI_COMMON_Q_NOFF, 2, 7);	/* read-only */
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_NOFF, 2), 1);
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	assert_int_equal(enabled_queues(f), 1);
	assert_queue(f, 1, 64, 0x3000, 0x4002, 0x5004);
	/* A live queue keeps its rings; enabling twice or writing 0 does nothing. */
	common_write(f, VIRTIO_PCI_COMMON_Q_DESCLO, 4, 0x8000);
	common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, 32);
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_DESCLO, 4), 0x3000);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SIZE, 2), 64);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2), 1);
	assert_queue(f, 1, 64, 0x3000, 0x4002, 0x5004);
	assert_int_equal(enabled_queues(f), 1);
	assert_int_equal(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET, 0);
}

static void test_queue_select_out_of_range(void **state)
{
	struct fixture *f = *state;
	uint8_t before[sizeof(f->fn.queue)];

	driver_negotiate(f, VERSION_1);
	memcpy(before, f->fn.queue, sizeof(before));
	for (uint32_t select = NET_QUEUES; select <= 0xffff; select += 0x3fff) {
		common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, select);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SELECT, 2), select);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SIZE, 2), 0);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_MSIX, 2), VIRTIO_MSI_NO_VECTOR);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2), 0);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_NOFF, 2), 0);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_USEDHI, 4), 0);
		common_write(f, VIRTIO_PCI_COMMON_Q_SIZE, 2, 16);
		common_write(f, VIRTIO_PCI_COMMON_Q_MSIX, 2, 0);
		common_write(f, VIRTIO_PCI_COMMON_Q_DESCLO, 4, 0x1000);
		common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	}
	assert_memory_equal(before, f->fn.queue, sizeof(before));
	assert_int_equal(enabled_queues(f), 0);
}

static void test_queue_enable_needs_features_ok(void **state)
{
	struct fixture *f = *state;

	add_status(f, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2), 0);
	assert_int_equal(enabled_queues(f), 0);
	assert_int_equal(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET, 0);
}

static void enable_refused(struct fixture *f, uint64_t desc, uint64_t driver, uint64_t device)
{
	char log[256];

	driver_negotiate(f, VERSION_1);
	common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, 0);
	common_write(f, VIRTIO_PCI_COMMON_Q_DESCLO, 4, (uint32_t)desc);
	common_write(f, VIRTIO_PCI_COMMON_Q_AVAILLO, 4, (uint32_t)driver);
	common_write(f, VIRTIO_PCI_COMMON_Q_USEDLO, 4, (uint32_t)device);
	stderr_capture_begin();
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	assert_non_null(strstr(stderr_capture_end(log, sizeof(log)),
			       "virtio-pci test: device 1041: queue 0 refused"));
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2), 0);
	assert_true(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET);
}

static void test_queue_enable_misaligned(void **state)
{
	struct fixture *f = *state;

	enable_refused(f, 0x1008, 0x2000, 0x3000);	/* descriptors: 16 */
	enable_refused(f, 0x1000, 0x2001, 0x3000);	/* driver ring: 2 */
	enable_refused(f, 0x1000, 0x2000, 0x3002);	/* device ring: 4 */
	assert_int_equal(enabled_queues(f), 0);
	assert_int_equal(f->msis, 0);	/* before DRIVER_OK nobody is told */
}

static void test_queue_enable_refused_by_device(void **state)
{
	struct fixture *f = *state;

	f->dev.refuse_queues = true;
	enable_refused(f, 0x1000, 0x2000, 0x3000);
	/* A reset brings the device back. */
	f->dev.refuse_queues = false;
	driver_init(f);
	assert_int_equal(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET, 0);
	assert_int_equal(enabled_queues(f), NET_QUEUES);
}

/* DRIVER_OK on a device whose queue was refused: it stays down (§2.1.2). */
static void test_driver_ok_after_queue_refused(void **state)
{
	struct fixture *f = *state;
	char log[256];

	f->dev.refuse_queues = true;
	enable_refused(f, 0x1000, 0x2000, 0x3000);
	stderr_capture_begin();
	add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
	stderr_capture_end(log, sizeof(log));
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_NEEDS_RESET);
	assert_int_equal(f->dev.driver_oks, 0);
	assert_int_equal(f->msis, 0);
}

static void test_msix_vector_mapping(void **state)
{
	struct fixture *f = *state;

	common_write(f, VIRTIO_PCI_COMMON_MSIX, 2, NET_QUEUES);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_MSIX, 2), NET_QUEUES);
	common_write(f, VIRTIO_PCI_COMMON_MSIX, 2, NET_QUEUES + 1);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_MSIX, 2), VIRTIO_MSI_NO_VECTOR);
	common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, 2);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_MSIX, 2), VIRTIO_MSI_NO_VECTOR);
	common_write(f, VIRTIO_PCI_COMMON_Q_MSIX, 2, 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_MSIX, 2), 0);
	common_write(f, VIRTIO_PCI_COMMON_Q_MSIX, 2, 0x1234);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_MSIX, 2), VIRTIO_MSI_NO_VECTOR);
	common_write(f, VIRTIO_PCI_COMMON_Q_MSIX, 2, 1);
	common_write(f, VIRTIO_PCI_COMMON_Q_MSIX, 2, VIRTIO_MSI_NO_VECTOR);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_MSIX, 2), VIRTIO_MSI_NO_VECTOR);
}

static void test_reset_clears(void **state)
{
	struct fixture *f = *state;
	uint64_t entry = msix_table_gpa(f, 1);

	driver_init(f);
	common_write(f, VIRTIO_PCI_COMMON_STATUS, 1, 0);
	assert_int_equal(f->dev.resets, 2);
	assert_int_equal(enabled_queues(f), 0);
	assert_int_equal(status(f), 0);
	assert_int_equal(virtio_pci_driver_features(&f->fn), 0);
	common_write(f, VIRTIO_PCI_COMMON_GFSELECT, 4, 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_GFSELECT, 4), 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_GF, 4), 0);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_MSIX, 2), VIRTIO_MSI_NO_VECTOR);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SELECT, 2), 0);
	for (unsigned int q = 0; q < NET_QUEUES; q++) {
		common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, q);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_SIZE, 2), QUEUE_MAX);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2), 0);
		assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_Q_MSIX, 2), VIRTIO_MSI_NO_VECTOR);
		assert_int_equal(mmio_read(f, common_gpa(f, VIRTIO_PCI_COMMON_Q_DESCLO), 8), 0);
		assert_int_equal(mmio_read(f, common_gpa(f, VIRTIO_PCI_COMMON_Q_AVAILLO), 8), 0);
		assert_int_equal(mmio_read(f, common_gpa(f, VIRTIO_PCI_COMMON_Q_USEDLO), 8), 0);
	}
	/* The device is quiet until the driver sets it up again. */
	virtio_pci_interrupt(&f->fn, 0);
	virtio_pci_config_interrupt(&f->fn);
	assert_int_equal(f->msis, 0);
	/* MSI-X belongs to PCI, not to the virtio device: it survives. */
	assert_int_equal(mmio_read(f, entry + PCI_MSIX_ENTRY_DATA, 4), MSI_VECTOR_BASE + 1);
	assert_true(cfg_read(f, f->probe.msix_pos + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_ENABLE);
	driver_init(f);
	assert_int_equal(enabled_queues(f), NET_QUEUES);
}

/* --- interrupts ----------------------------------------------------------------- */

static void test_needs_reset(void **state)
{
	struct fixture *f = *state;
	uint8_t generation;

	driver_init(f);
	generation = (uint8_t)common_read(f, VIRTIO_PCI_COMMON_CFGGENERATION, 1);
	virtio_pci_mark_needs_reset(&f->fn);
	assert_true(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET);
	assert_int_equal(f->msis, 1);
	assert_int_equal(f->msi[0].data, MSI_VECTOR_BASE + 0);	/* the config vector */
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_CFGGENERATION, 1), generation);
	virtio_pci_mark_needs_reset(&f->fn);
	assert_int_equal(f->msis, 1);
	/* virtio_add_status() writes it back; it stays until a reset. */
	add_status(f, VIRTIO_CONFIG_S_FAILED);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK |
			 VIRTIO_CONFIG_S_FAILED | VIRTIO_CONFIG_S_NEEDS_RESET);
	common_write(f, VIRTIO_PCI_COMMON_STATUS, 1, 0);
	assert_int_equal(status(f), 0);
}

static void test_needs_reset_before_driver_ok(void **state)
{
	struct fixture *f = *state;

	driver_negotiate(f, VERSION_1);
	msix_setup(f, NET_QUEUES + 1);
	common_write(f, VIRTIO_PCI_COMMON_MSIX, 2, 0);
	virtio_pci_mark_needs_reset(&f->fn);
	assert_true(status(f) & VIRTIO_CONFIG_S_NEEDS_RESET);
	assert_int_equal(f->msis, 0);
}

static void test_config_interrupt(void **state)
{
	struct fixture *f = *state;
	uint8_t generation = (uint8_t)common_read(f, VIRTIO_PCI_COMMON_CFGGENERATION, 1);

	virtio_pci_config_interrupt(&f->fn);	/* before DRIVER_OK: generation only */
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_CFGGENERATION, 1),
			 (uint8_t)(generation + 1));
	assert_int_equal(f->msis, 0);
	driver_init(f);
	virtio_pci_config_interrupt(&f->fn);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_CFGGENERATION, 1),
			 (uint8_t)(generation + 2));
	assert_int_equal(f->msis, 1);
	assert_int_equal(f->msi[0].address, MSI_ADDRESS);
	assert_int_equal(f->msi[0].data, MSI_VECTOR_BASE);
	/* No vector for config changes: none is sent. */
	common_write(f, VIRTIO_PCI_COMMON_MSIX, 2, VIRTIO_MSI_NO_VECTOR);
	virtio_pci_config_interrupt(&f->fn);
	assert_int_equal(f->msis, 1);
}

static void test_interrupt_conditions(void **state)
{
	struct fixture *f = *state;

	driver_negotiate(f, VERSION_1);
	msix_setup(f, NET_QUEUES + 1);
	queue_setup(f, 1, QUEUE_MAX, 2);	/* set up, never enabled */
	queue_setup(f, 0, QUEUE_MAX, 1);
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	virtio_pci_interrupt(&f->fn, 0);	/* before DRIVER_OK */
	add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
	virtio_pci_interrupt(&f->fn, 1);
	virtio_pci_interrupt(&f->fn, NET_QUEUES);
	virtio_pci_interrupt(&f->fn, ~0u);
	assert_int_equal(f->msis, 0);
	assert_int_equal(msix_pba(f), 0);
	virtio_pci_interrupt(&f->fn, 0);
	assert_int_equal(f->msis, 1);
	assert_int_equal(f->msi[0].data, MSI_VECTOR_BASE + 1);
	common_write(f, VIRTIO_PCI_COMMON_Q_MSIX, 2, VIRTIO_MSI_NO_VECTOR);
	virtio_pci_interrupt(&f->fn, 0);
	assert_int_equal(f->msis, 1);
	assert_int_equal(msix_pba(f), 0);
}

static void test_msix_vector_mask(void **state)
{
	struct fixture *f = *state;
	uint64_t entry = msix_table_gpa(f, 2);

	driver_init(f);
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, PCI_MSIX_ENTRY_CTRL_MASKBIT);
	virtio_pci_interrupt(&f->fn, 1);
	virtio_pci_interrupt(&f->fn, 1);
	assert_int_equal(f->msis, 0);
	assert_int_equal(msix_pba(f), 1u << 2);
	virtio_pci_interrupt(&f->fn, 0);	/* vector 1 is unmasked */
	assert_int_equal(f->msis, 1);
	/* The guest moves the message while masked; unmasking sends it once, new. */
	mmio_write(f, entry + PCI_MSIX_ENTRY_DATA, 4, 0x99);
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 0);
	assert_int_equal(f->msis, 2);
	assert_int_equal(f->msi[1].data, 0x99);
	assert_int_equal(msix_pba(f), 0);
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 0);
	assert_int_equal(f->msis, 2);
	/* With MSI-X disabled a pending message waits, even unmasked. */
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, PCI_MSIX_ENTRY_CTRL_MASKBIT);
	virtio_pci_interrupt(&f->fn, 1);
	msix_control_write(f, 0, PCI_MSIX_FLAGS_ENABLE);
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 0);
	assert_int_equal(f->msis, 2);
	assert_int_equal(msix_pba(f), 1u << 2);
	msix_control_write(f, PCI_MSIX_FLAGS_ENABLE, 0);
	assert_int_equal(f->msis, 3);
	assert_int_equal(msix_pba(f), 0);
}

static void test_msix_function_mask(void **state)
{
	struct fixture *f = *state;

	driver_init(f);
	msix_control_write(f, PCI_MSIX_FLAGS_MASKALL, 0);
	virtio_pci_interrupt(&f->fn, 0);
	virtio_pci_interrupt(&f->fn, 2);
	virtio_pci_config_interrupt(&f->fn);
	assert_int_equal(f->msis, 0);
	assert_int_equal(msix_pba(f), 1u << 0 | 1u << 1 | 1u << 3);
	/* Writes that leave the mask set deliver nothing. */
	cfg_write(f, f->probe.msix_pos + PCI_MSIX_FLAGS + 1, 1,
		  (PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL) >> 8);
	assert_int_equal(f->msis, 0);
	msix_control_write(f, 0, PCI_MSIX_FLAGS_MASKALL);
	assert_int_equal(f->msis, 3);
	assert_int_equal(f->msi[0].data, MSI_VECTOR_BASE + 0);
	assert_int_equal(f->msi[1].data, MSI_VECTOR_BASE + 1);
	assert_int_equal(f->msi[2].data, MSI_VECTOR_BASE + 3);
	assert_int_equal(msix_pba(f), 0);
}

static void test_msix_disabled_uses_isr(void **state)
{
	struct fixture *f = *state;
	uint64_t isr = virtio_pci_bar_address(&f->fn) + f->probe.cap[VIRTIO_PCI_CAP_ISR_CFG].offset;

	driver_init(f);
	msix_control_write(f, 0, PCI_MSIX_FLAGS_ENABLE);
	virtio_pci_interrupt(&f->fn, 0);
	assert_int_equal(f->msis, 0);
	assert_int_equal(msix_pba(f), 0);
	virtio_pci_config_interrupt(&f->fn);
	assert_int_equal(mmio_read(f, isr, 1), VIRTIO_PCI_ISR_CONFIG | 1);
	assert_int_equal(mmio_read(f, isr, 1), 0);	/* read clears */
	virtio_pci_interrupt(&f->fn, 2);
	assert_int_equal(mmio_read(f, isr, 4), 0);	/* wrong width: no read */
	assert_int_equal(mmio_read(f, isr, 1), 1);
	/* Enabling MSI-X later sends nothing for what the ISR already said. */
	msix_control_write(f, PCI_MSIX_FLAGS_ENABLE, 0);
	assert_int_equal(f->msis, 0);
}

static void test_msix_table(void **state)
{
	struct fixture *f = *state;
	uint64_t entry = msix_table_gpa(f, NET_QUEUES);
	uint64_t past = msix_table_gpa(f, NET_QUEUES + 1);

	/* Power-on: every vector masked (PCI 3.0 §6.8.2.9). */
	for (unsigned int v = 0; v <= NET_QUEUES; v++)
		assert_int_equal(mmio_read(f, msix_table_gpa(f, v) + PCI_MSIX_ENTRY_VECTOR_CTRL, 4),
				 PCI_MSIX_ENTRY_CTRL_MASKBIT);
	mmio_write(f, entry + PCI_MSIX_ENTRY_LOWER_ADDR, 4, 0xfee01003);
	assert_int_equal(mmio_read(f, entry + PCI_MSIX_ENTRY_LOWER_ADDR, 4), 0xfee01000);
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 0xfffffffe);
	assert_int_equal(mmio_read(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4), 0);
	/* A quadword access is two dwords. */
	mmio_write(f, entry + PCI_MSIX_ENTRY_LOWER_ADDR, 8, 0x00000001fee02000ull);
	assert_int_equal(mmio_read(f, entry + PCI_MSIX_ENTRY_LOWER_ADDR, 8),
			 0x00000001fee02000ull);
	/* Narrow accesses are undefined: ignored. */
	mmio_write(f, entry + PCI_MSIX_ENTRY_DATA, 2, 0x1234);
	mmio_write(f, entry + PCI_MSIX_ENTRY_DATA, 1, 0x12);
	assert_int_equal(mmio_read(f, entry + PCI_MSIX_ENTRY_DATA, 4), 0);
	assert_int_equal(mmio_read(f, entry + PCI_MSIX_ENTRY_LOWER_ADDR, 2), 0);
	/* Beyond the last entry nothing is stored. */
	mmio_write(f, past + PCI_MSIX_ENTRY_DATA, 4, 0x77);
	assert_int_equal(mmio_read(f, past + PCI_MSIX_ENTRY_DATA, 4), 0);
	/* The PBA is read-only. */
	mmio_write(f, msix_table_gpa(f, 0) + 0x800, 4, 0xffffffff);
	assert_int_equal(msix_pba(f), 0);
}

/* --- device-specific configuration, ISR, notifications ---------------------- */

static void test_device_config(void **state)
{
	struct fixture *f = *state;
	uint64_t config = virtio_pci_bar_address(&f->fn) +
			  f->probe.cap[VIRTIO_PCI_CAP_DEVICE_CFG].offset;

	/* virtio_cread_bytes(): the MAC, a byte at a time. */
	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(mmio_read(f, config + i, 1), 0x50 + i);
	assert_int_equal(mmio_read(f, config + 6, 2), 0x5756);
	assert_int_equal(mmio_read(f, config + 8, 4), 0x5b5a5958);
	assert_int_equal(mmio_read(f, config, 8), 0x5756555453525150ull);
	/* Every model's config is read-only: a write changes nothing. */
	mmio_write(f, config + 6, 2, 0xbeef);
	assert_int_equal(mmio_read(f, config + 6, 2), 0x5756);
	/* An 8-byte read across the end: only the half inside is read. */
	f->dev.config_reads = 0;
	assert_int_equal(mmio_read(f, config + 8, 8), 0x5b5a5958);
	assert_int_equal(f->dev.config_reads, 1);
	/* Past the end, or across it, or misaligned: the model is never asked. */
	f->dev.config_reads = 0;
	assert_int_equal(mmio_read(f, config + CONFIG_SIZE, 1), 0);
	assert_int_equal(mmio_read(f, config + 10, 4), 0);
	assert_int_equal(mmio_read(f, config + 1, 2), 0);
	mmio_write(f, config + CONFIG_SIZE, 4, 1);
	mmio_write(f, config + 2, 4, 1);
	assert_int_equal(f->dev.config_reads, 0);
	assert_int_equal(mmio_read(f, config + 8, 4), 0x5b5a5958);
}

static void test_notify_region(void **state)
{
	struct fixture *f = *state;
	const struct region *notify = &f->probe.cap[VIRTIO_PCI_CAP_NOTIFY_CFG];
	uint64_t base = virtio_pci_bar_address(&f->fn) + notify->offset;

	assert_int_equal(mmio_write(f, base, 2, 0), 0);
	assert_int_equal(mmio_write(f, base + 2 * f->probe.notify_multiplier, 4, 2), 2);
	assert_int_equal(mmio_write(f, base + 2, 2, 0), VIRTIO_PCI_NO_NOTIFY);
	assert_int_equal(mmio_write(f, base + notify->length, 2, 3), VIRTIO_PCI_NO_NOTIFY);
	assert_int_equal(mmio_write(f, base, 8, 0), 0);
	assert_int_equal(mmio_read(f, base, 2), 0);
	assert_int_equal(f->fn.kicks, 4);	/* the 8-byte write kicked queues 0 and 1 */
}

/* --- the PCI configuration access capability (§4.1.4.8) --------------------- */

static void window_set(struct fixture *f, uint8_t bar, uint32_t offset, uint32_t length)
{
	unsigned int pos = f->probe.cap[VIRTIO_PCI_CAP_PCI_CFG].pos;

	cfg_write(f, pos + VIRTIO_PCI_CAP_BAR, 1, bar);
	cfg_write(f, pos + VIRTIO_PCI_CAP_OFFSET, 4, offset);
	cfg_write(f, pos + VIRTIO_PCI_CAP_LENGTH, 4, length);
}

static unsigned int window_data(struct fixture *f)
{
	return f->probe.cap[VIRTIO_PCI_CAP_PCI_CFG].pos + offsetof(struct virtio_pci_cfg_cap,
								    pci_cfg_data);
}

static void test_pci_cfg_window(void **state)
{
	struct fixture *f = *state;
	uint32_t common = f->probe.cap[VIRTIO_PCI_CAP_COMMON_CFG].offset;
	uint32_t device = f->probe.cap[VIRTIO_PCI_CAP_DEVICE_CFG].offset;

	/* It works with memory decoding off: that is what it is for. */
	cfg_write(f, PCI_COMMAND, 2, 0);
	window_set(f, 0, common + VIRTIO_PCI_COMMON_NUMQ, 2);
	assert_int_equal(cfg_read(f, window_data(f), 4), NET_QUEUES);
	assert_int_equal(cfg_read(f, window_data(f), 2), NET_QUEUES);

	/* Writes go to the BAR: a whole status update through the window. */
	window_set(f, 0, common + VIRTIO_PCI_COMMON_STATUS, 1);
	cfg_write(f, window_data(f), 1, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	assert_int_equal(cfg_read(f, window_data(f), 1), VIRTIO_CONFIG_S_ACKNOWLEDGE);
	cfg_write(f, window_data(f), 4, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	assert_int_equal(f->fn.status, VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);

	/* Feature words behind a select, read after writing the select. */
	window_set(f, 0, common + VIRTIO_PCI_COMMON_DFSELECT, 4);
	cfg_write(f, window_data(f), 4, 1);
	window_set(f, 0, common + VIRTIO_PCI_COMMON_DF, 4);
	assert_int_equal(cfg_read(f, window_data(f), 4), (NET_FEATURES | VERSION_1) >> 32);

	/* The device config, and what the device changes later shows. */
	window_set(f, 0, device + 4, 4);
	assert_int_equal(cfg_read(f, window_data(f), 4), 0x57565554);
	f->dev.config[4] = 0xaa;
	virtio_pci_config_interrupt(&f->fn);
	assert_int_equal(cfg_read(f, window_data(f), 4), 0x575655aa);
	cfg_write(f, window_data(f), 4, 0x12345678);
	assert_int_equal(cfg_read(f, window_data(f), 4), 0x575655aa);
}

static void test_pci_cfg_window_refuses(void **state)
{
	struct fixture *f = *state;
	uint32_t status_offset = f->probe.cap[VIRTIO_PCI_CAP_COMMON_CFG].offset +
				 VIRTIO_PCI_COMMON_STATUS;
	uint32_t numq = f->probe.cap[VIRTIO_PCI_CAP_COMMON_CFG].offset + VIRTIO_PCI_COMMON_NUMQ;
	const struct { uint8_t bar; uint32_t offset, length; } bad[] = {
		{ 1, status_offset, 1 },		/* no such BAR */
		{ 0xff, status_offset, 1 },
		{ 0, status_offset, 0 },		/* lengths 1, 2, 4 only */
		{ 0, status_offset, 3 },
		{ 0, status_offset, 8 },
		{ 0, numq + 1, 2 },			/* misaligned */
		{ 0, VIRTIO_PCI_BAR_SIZE, 1 },		/* outside the BAR */
		{ 0, 0xfffffffc, 4 },
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		window_set(f, bad[i].bar, bad[i].offset, bad[i].length);
		assert_int_equal(cfg_read(f, window_data(f), 4), 0);
		cfg_write(f, window_data(f), 4, VIRTIO_CONFIG_S_ACKNOWLEDGE);
		assert_int_equal(f->fn.status, 0);
	}
	assert_int_equal(f->dev.resets, 0);
}

static void test_pci_cfg_window_isr(void **state)
{
	struct fixture *f = *state;
	uint32_t isr = f->probe.cap[VIRTIO_PCI_CAP_ISR_CFG].offset;

	driver_init(f);
	msix_control_write(f, 0, PCI_MSIX_FLAGS_ENABLE);
	window_set(f, 0, isr, 1);
	virtio_pci_interrupt(&f->fn, 0);
	assert_int_equal(cfg_read(f, window_data(f), 1), 1);
	/* The BAR read is the one that acknowledges; the window follows. */
	assert_int_equal(mmio_read(f, virtio_pci_bar_address(&f->fn) + isr, 1), 1);
	assert_int_equal(cfg_read(f, window_data(f), 1), 0);
}

/* A masked vector's pending bit shows through the window; a sent message changes nothing. */
static void test_pci_cfg_window_pba(void **state)
{
	struct fixture *f = *state;
	uint32_t pba = cfg_read(f, f->probe.msix_pos + PCI_MSIX_PBA, 4) & PCI_MSIX_PBA_OFFSET;
	uint32_t isr = f->probe.cap[VIRTIO_PCI_CAP_ISR_CFG].offset;
	uint64_t entry = msix_table_gpa(f, 2);

	driver_init(f);
	window_set(f, 0, isr, 1);
	virtio_pci_interrupt(&f->fn, 1);
	assert_int_equal(f->msis, 1);
	assert_int_equal(cfg_read(f, window_data(f), 1), 0);
	window_set(f, 0, pba, 4);
	assert_int_equal(cfg_read(f, window_data(f), 4), 0);
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, PCI_MSIX_ENTRY_CTRL_MASKBIT);
	virtio_pci_interrupt(&f->fn, 1);
	assert_int_equal(f->msis, 1);
	assert_int_equal(cfg_read(f, window_data(f), 4), 1u << 2);
	mmio_write(f, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 0);
	assert_int_equal(f->msis, 2);
	assert_int_equal(cfg_read(f, window_data(f), 4), 0);
}

/* --- garbage ----------------------------------------------------------------------- */

static void test_garbage_accesses(void **state)
{
	struct fixture *f = *state;
	static const unsigned int sizes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 16, ~0u };
	struct virtio_pci before;

	driver_init(f);
	/* Reads of every offset and width: side-effect free except the ISR. */
	for (uint64_t offset = 0; offset < VIRTIO_PCI_BAR_SIZE + 16; offset++)
		for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			virtio_pci_bar_read(&f->fn, offset, sizes[s]);
	assert_int_equal(status(f), VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK);
	memcpy(&before, &f->fn, sizeof(before));
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		assert_int_equal(virtio_pci_bar_read(&f->fn, UINT64_MAX, sizes[s]), 0);
		assert_int_equal(virtio_pci_bar_read(&f->fn, UINT64_MAX - 3, sizes[s]), 0);
		assert_int_equal(virtio_pci_bar_write(&f->fn, UINT64_MAX - 7, sizes[s], ~0ull),
				 VIRTIO_PCI_NO_NOTIFY);
		assert_int_equal(virtio_pci_bar_write(&f->fn, VIRTIO_PCI_BAR_SIZE, sizes[s], ~0ull),
				 VIRTIO_PCI_NO_NOTIFY);
	}
	/* Misaligned and odd-sized writes into the common config. */
	for (unsigned int offset = 0; offset < sizeof(struct virtio_pci_common_cfg); offset++) {
		virtio_pci_bar_write(&f->fn, offset, 3, ~0ull);
		if (offset % 2)
			virtio_pci_bar_write(&f->fn, offset, 2, ~0ull);
		if (offset % 4)
			virtio_pci_bar_write(&f->fn, offset, 4, ~0ull);
	}
	/* Wrong widths on real fields; read-only fields. */
	virtio_pci_bar_write(&f->fn, VIRTIO_PCI_COMMON_STATUS, 2, 0);
	virtio_pci_bar_write(&f->fn, VIRTIO_PCI_COMMON_STATUS, 4, 0);
	virtio_pci_bar_write(&f->fn, VIRTIO_PCI_COMMON_Q_SELECT, 4, 0xffffffff);
	virtio_pci_bar_write(&f->fn, VIRTIO_PCI_COMMON_NUMQ, 2, 0);
	virtio_pci_bar_write(&f->fn, VIRTIO_PCI_COMMON_DF, 4, 0);
	virtio_pci_bar_write(&f->fn, VIRTIO_PCI_COMMON_CFGGENERATION, 1, 9);
	/* Between the structures, the ISR and the PBA: nothing to write. */
	for (uint64_t offset = 0x40; offset < VIRTIO_PCI_BAR_SIZE; offset += 0x40)
		if (offset < 0x1000 || (offset >= 0x2000 + 0x100 && offset < 0x3000) ||
		    offset >= 0x3000 + (NET_QUEUES + 1) * PCI_MSIX_ENTRY_SIZE)
			virtio_pci_bar_write(&f->fn, offset, 4, ~0ull);
	assert_memory_equal(&before, &f->fn, sizeof(before));
	assert_int_equal(f->dev.resets, 1);
	assert_int_equal(f->msis, 0);
}

/* The transport's limits, each broken in turn; LIMITS_LARGEST keeps them all at their edge. */
enum limit {
	NO_QUEUES, TOO_MANY_QUEUES, ODD_QUEUE_SIZE, NO_QUEUE_SIZE, CONFIG_TOO_BIG,
	DEVICE_ID_TOO_BIG, RING_RESET, NO_QUEUE_MAP, NO_NAME, LIMITS_BROKEN, LIMITS_LARGEST,
};

/* virtio_pci_init() on a fake model set up to one case of enum limit. */
static bool init_limit(struct fixture *f, enum limit limit)
{
	struct fake_device *d = &f->dev;

	fake_init(f, &net_ops, NET_FEATURES, NET_QUEUES);
	switch (limit) {
	case NO_QUEUES:
		d->vdev.num_queues = 0;
		break;
	case TOO_MANY_QUEUES:
		d->vdev.num_queues = VIRTIO_PCI_QUEUES_MAX + 1;
		break;
	case ODD_QUEUE_SIZE:
		d->ops.queue_size_max = 100;
		break;
	case NO_QUEUE_SIZE:
		d->ops.queue_size_max = 0;
		break;
	case CONFIG_TOO_BIG:
		d->ops.config_size = VIRTIO_DEV_CONFIG_MAX + 1;
		break;
	case DEVICE_ID_TOO_BIG:
		d->ops.device_id = 0x40;	/* beyond PCI device ID 0x107f */
		break;
	case RING_RESET:
		d->vdev.offered |= 1ull << VIRTIO_F_RING_RESET;	/* no queue_reset field */
		break;
	case NO_QUEUE_MAP:
		d->ops.queue = NULL;
		break;
	case NO_NAME:
		d->vdev.name = NULL;
		break;
	default:
		d->vdev.num_queues = VIRTIO_PCI_QUEUES_MAX;
		d->ops.queue_size_max = 32768;
		d->ops.config_size = VIRTIO_DEV_CONFIG_MAX;
		break;
	}
	return virtio_pci_init(&f->fn, &d->vdev, record_msi, f, BAR_GPA);
}

static void test_init_rejects(void **state)
{
	struct fixture *f = test_calloc(1, sizeof(*f));
	char log[1024];

	(void)state;
	assert_non_null(f);
	stderr_capture_begin();
	for (enum limit limit = NO_QUEUES; limit < LIMITS_BROKEN; limit++)
		assert_false(init_limit(f, limit));
	fake_init(f, &net_ops, NET_FEATURES, NET_QUEUES);
	assert_false(virtio_pci_init(&f->fn, &f->dev.vdev, NULL, NULL, BAR_GPA));
	assert_false(virtio_pci_init(&f->fn, &f->dev.vdev, record_msi, f, BAR_GPA + 0x2000));
	assert_non_null(strstr(stderr_capture_end(log, sizeof(log)), "virtio-pci test: device type"));
	/* The largest function and device config a model may have. */
	assert_true(init_limit(f, LIMITS_LARGEST));
	assert_int_equal(virtio_pci_bar_read(&f->fn, VIRTIO_PCI_COMMON_NUMQ, 2),
			 VIRTIO_PCI_QUEUES_MAX);
	assert_int_equal(virtio_pci_bar_read(&f->fn, 0x1000 + VIRTIO_DEV_CONFIG_MAX - 1, 1),
			 (uint8_t)(0x50 + VIRTIO_DEV_CONFIG_MAX - 1));
	assert_int_equal(virtio_pci_bar_read(&f->fn, 0x1000 + VIRTIO_DEV_CONFIG_MAX, 1), 0);
	test_free(f);
}

static void test_largest_function(void **state)
{
	struct fixture *f = *state;
	unsigned int last = VIRTIO_PCI_QUEUES_MAX;

	assert_int_equal(cfg_read(f, f->probe.msix_pos + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_QSIZE,
			 last);
	driver_negotiate(f, VERSION_1);
	msix_setup(f, last + 1);
	queue_setup(f, last - 1, QUEUE_MAX, (uint16_t)last);
	common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
	mmio_write(f, msix_table_gpa(f, last) + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 1);
	virtio_pci_interrupt(&f->fn, last - 1);
	assert_int_equal(f->msis, 0);
	/* Vector 64 is bit 0 of the PBA's second quadword. */
	assert_int_equal(mmio_read(f, virtio_pci_bar_address(&f->fn) +
				   (cfg_read(f, f->probe.msix_pos + PCI_MSIX_PBA, 4) & ~7u) + 8, 4),
			 1);
	mmio_write(f, msix_table_gpa(f, last) + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, 0);
	assert_int_equal(f->msis, 1);
	assert_int_equal(f->msi[0].data, MSI_VECTOR_BASE + last);
	assert_int_equal(mmio_write(f, virtio_pci_bar_address(&f->fn) +
				    f->probe.cap[VIRTIO_PCI_CAP_NOTIFY_CFG].offset +
				    (last - 1) * f->probe.notify_multiplier, 2, last - 1),
			 (int)last - 1);
}

/*
 * A multiqueue NIC as Linux sets it up (vp_find_vqs_msix()): a vector per
 * queue with a callback and one for config changes, none for the control
 * queue, whose commands Linux polls for. Each data queue's interrupt leaves
 * with its own vector and destination, the vCPU the driver gave it.
 */
static void test_multiqueue_vectors(void **state)
{
	struct fixture *f = *state;
	unsigned int ctrl = MQ_QUEUES - 1;

	assert_int_equal((cfg_read(f, f->probe.msix_pos + PCI_MSIX_FLAGS, 2) &
			  PCI_MSIX_FLAGS_QSIZE) + 1, MQ_QUEUES + 1);
	assert_int_equal(common_read(f, VIRTIO_PCI_COMMON_NUMQ, 2), MQ_QUEUES);
	driver_negotiate(f, VERSION_1 | MQ_FEATURES);
	msix_setup(f, MQ_QUEUES);
	common_write(f, VIRTIO_PCI_COMMON_MSIX, 2, 0);
	for (unsigned int q = 0; q < ctrl; q++)
		queue_setup(f, q, QUEUE_MAX, (uint16_t)(q + 1));
	queue_setup(f, ctrl, QUEUE_MAX, VIRTIO_MSI_NO_VECTOR);
	for (unsigned int q = 0; q < MQ_QUEUES; q++) {
		common_write(f, VIRTIO_PCI_COMMON_Q_SELECT, 2, q);
		common_write(f, VIRTIO_PCI_COMMON_Q_ENABLE, 2, 1);
	}
	add_status(f, VIRTIO_CONFIG_S_DRIVER_OK);
	assert_int_equal(enabled_queues(f), MQ_QUEUES);
	assert_int_equal(f->dev.ok_features, VERSION_1 | MQ_FEATURES);

	for (unsigned int q = ctrl; q-- > 0;) {
		virtio_pci_interrupt(&f->fn, q);
		assert_int_equal(f->msi[f->msis - 1].data, MSI_VECTOR_BASE + q + 1);
		assert_int_equal(f->msi[f->msis - 1].address, MSI_ADDRESS | (q + 1) << 12);
	}
	assert_int_equal(f->msis, ctrl);
	virtio_pci_interrupt(&f->fn, ctrl);
	assert_int_equal(f->msis, ctrl);
	assert_int_equal(msix_pba(f), 0);
	assert_int_equal(mmio_write(f, virtio_pci_bar_address(&f->fn) +
				    f->probe.cap[VIRTIO_PCI_CAP_NOTIFY_CFG].offset +
				    ctrl * f->probe.notify_multiplier, 2, ctrl),
			 (int)ctrl);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fixture_setup, fixture_teardown)
	const struct CMUnitTest pci[] = {
		T(test_identity_net),
		cmocka_unit_test_setup_teardown(test_identity_vsock, fixture_setup_vsock,
						fixture_teardown),
		T(test_capabilities),
		cmocka_unit_test_setup_teardown(test_no_device_cap_without_config,
						fixture_setup_no_config, fixture_teardown),
		T(test_capabilities_read_only),
		T(test_bar_sizing_and_moving),
		T(test_bar_decode),
		cmocka_unit_test(test_init_rejects),
		T(test_bad_writes_pass_the_bucket),
		T(test_queue_refusal_reasons),
		cmocka_unit_test_setup_teardown(test_largest_function, fixture_setup_largest,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_multiqueue_vectors, fixture_setup_multiqueue,
						fixture_teardown),
	};
	const struct CMUnitTest common[] = {
		T(test_features_offered),
		T(test_features_accepted),
		T(test_features_refused),
		T(test_features_model_rule),
		T(test_driver_ok_after_refused_features),
		T(test_unoffered_high_words_dropped),
		T(test_status_rules),
		T(test_linux_init_sequence),
		T(test_queue_fields),
		T(test_queue_select_out_of_range),
		T(test_queue_enable_needs_features_ok),
		T(test_queue_enable_misaligned),
		T(test_queue_enable_refused_by_device),
		T(test_driver_ok_after_queue_refused),
		T(test_msix_vector_mapping),
		T(test_reset_clears),
	};
	const struct CMUnitTest interrupts[] = {
		T(test_needs_reset),
		T(test_needs_reset_before_driver_ok),
		T(test_config_interrupt),
		T(test_interrupt_conditions),
		T(test_msix_vector_mask),
		T(test_msix_function_mask),
		T(test_msix_disabled_uses_isr),
		T(test_msix_table),
	};
	const struct CMUnitTest regions[] = {
		T(test_device_config),
		T(test_notify_region),
		T(test_pci_cfg_window),
		T(test_pci_cfg_window_refuses),
		T(test_pci_cfg_window_isr),
		T(test_pci_cfg_window_pba),
		T(test_garbage_accesses),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("virtio-pci function", pci, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-pci common config", common, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-pci interrupts", interrupts, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-pci regions", regions, NULL, NULL);
	return failed ? 1 : 0;
}
