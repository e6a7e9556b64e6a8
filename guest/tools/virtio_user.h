/* SPDX-License-Identifier: MIT */
/*
 * virtio_user.h - a modern virtio-pci driver's transport, run as root from
 * userspace inside a guest, for the hostile drivers (badring, badvsock).
 *
 * It takes a virtio PCI function away from Linux's virtio-pci driver
 * through sysfs, maps the BAR regions its capabilities name (virtio 1.2
 * §4.1.4), and drives the device status, feature negotiation and queue
 * setup (§3.1.1) itself. Rings live in locked anonymous pages whose
 * guest-physical addresses come from /proc/self/pagemap; the tools poll the
 * used rings, and queue_enable() asks for no interrupt (NO_VECTOR): an
 * MSI-X vector is set only to see what the hypervisor does with it.
 *
 * Each tool defines VIRTIO_USER_TOOL, its name for error lines, before
 * including this. The functions are static inline: each tool compiles in
 * the ones it calls, and this header is their only copy.
 */
#ifndef SIDECORE_GUEST_VIRTIO_USER_H
#define SIDECORE_GUEST_VIRTIO_USER_H

#ifndef VIRTIO_USER_TOOL
#error "define VIRTIO_USER_TOOL before including virtio_user.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>
#include <linux/virtio_pci.h>
#include <linux/virtio_ring.h>

#define SYSFS_PCI	"/sys/bus/pci/devices"
#define VIRTIO_VENDOR	0x1af4
#define PAGE		4096u
#define QUEUE_SIZE_MAX	256		/* 16-byte descriptors: one page */
#define CAP_WALK_MAX	48		/* a 256-byte space holds at most 48 capabilities */
#define WAIT_STEPS	250		/* 20 ms each: 5 s for the device to look */
#define WAIT_STEP_US	20000

/* The function and the BAR regions its capabilities point at (§4.1.4). */
struct device {
	char slot[64];			/* sysfs name, e.g. 0000:00:01.0 */
	int config_fd;			/* its configuration space in sysfs */
	volatile uint8_t *common;	/* struct virtio_pci_common_cfg */
	volatile uint8_t *notify;
	volatile uint8_t *device_cfg;	/* the device-specific configuration, or NULL */
	volatile uint8_t *msix_table;	/* PCI 3.0 §6.8.2, or NULL */
	unsigned int msix_cap;		/* its capability's offset in config space */
	uint32_t notify_multiplier;
};

/* One virtqueue's three parts, a page each, and where the device sees them. */
struct queue {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint64_t desc_gpa, avail_gpa, used_gpa;
	uint16_t size;			/* what queue setup settled on */
};

static inline void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(VIRTIO_USER_TOOL ": error: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	if (errno)
		printf(" (%s)", strerror(errno));
	putchar('\n');
	exit(1);
}

/*
 * MMIO goes through plain MOVs: the hypervisor emulates each access from
 * the instruction, and a compiler may otherwise fold a volatile
 * read-modify-write into one instruction with a memory operand.
 */
static inline uint8_t mmio_read8(volatile uint8_t *base, unsigned int off)
{
	uint8_t v;

	__asm__ volatile("movb %1, %0" : "=q"(v) : "m"(*(volatile uint8_t *)(base + off)));
	return v;
}

static inline uint16_t mmio_read16(volatile uint8_t *base, unsigned int off)
{
	uint16_t v;

	__asm__ volatile("movw %1, %0" : "=r"(v) : "m"(*(volatile uint16_t *)(base + off)));
	return v;
}

static inline uint32_t mmio_read32(volatile uint8_t *base, unsigned int off)
{
	uint32_t v;

	__asm__ volatile("movl %1, %0" : "=r"(v) : "m"(*(volatile uint32_t *)(base + off)));
	return v;
}

static inline void mmio_write8(volatile uint8_t *base, unsigned int off, uint8_t v)
{
	__asm__ volatile("movb %1, %0" : "=m"(*(volatile uint8_t *)(base + off)) : "q"(v)
			 : "memory");
}

static inline void mmio_write16(volatile uint8_t *base, unsigned int off, uint16_t v)
{
	__asm__ volatile("movw %1, %0" : "=m"(*(volatile uint16_t *)(base + off)) : "r"(v)
			 : "memory");
}

static inline void mmio_write32(volatile uint8_t *base, unsigned int off, uint32_t v)
{
	__asm__ volatile("movl %1, %0" : "=m"(*(volatile uint32_t *)(base + off)) : "r"(v)
			 : "memory");
}

static inline void mmio_write64(volatile uint8_t *base, unsigned int off, uint64_t v)
{
	/* §4.1.3.1: 64-bit fields may be written as two 32-bit halves, low first. */
	mmio_write32(base, off, (uint32_t)v);
	mmio_write32(base, off + 4, (uint32_t)(v >> 32));
}

static inline unsigned long sysfs_read_hex(const char *slot, const char *file)
{
	char path[256], text[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), SYSFS_PCI "/%s/%s", slot, file);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return strtoul(text, NULL, 16);
}

static inline void sysfs_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("cannot write '%s' to %s", text, path);
	close(fd);
}

/* The first virtio function with PCI device ID pci_id (§4.1.2). */
static inline void device_find(struct device *dev, unsigned int pci_id)
{
	DIR *d = opendir(SYSFS_PCI);
	struct dirent *e;

	if (!d)
		die("cannot list " SYSFS_PCI);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(dev->slot))
			continue;
		if (sysfs_read_hex(e->d_name, "vendor") == VIRTIO_VENDOR &&
		    sysfs_read_hex(e->d_name, "device") == pci_id) {
			strcpy(dev->slot, e->d_name);
			closedir(d);
			return;
		}
	}
	closedir(d);
	errno = 0;
	die("no virtio PCI function (vendor %#x device %#x)", VIRTIO_VENDOR, pci_id);
}

/* Linux's driver lets go of the function: from here on it is ours alone. */
static inline void device_unbind(const struct device *dev)
{
	char path[256];

	snprintf(path, sizeof(path), SYSFS_PCI "/%s/driver", dev->slot);
	if (access(path, F_OK) != 0)
		return;
	snprintf(path, sizeof(path), SYSFS_PCI "/%s/driver/unbind", dev->slot);
	sysfs_write(path, dev->slot);
}

/* Memory space decoding on (PCI 3.0 §6.2.2), through the config file if need be. */
static inline void device_enable_memory(const struct device *dev)
{
	char path[256];
	uint16_t command;

	snprintf(path, sizeof(path), SYSFS_PCI "/%s/enable", dev->slot);
	sysfs_write(path, "1");
	if (pread(dev->config_fd, &command, 2, PCI_COMMAND) != 2)
		die("cannot read the command register");
	if (command & PCI_COMMAND_MEMORY)
		return;
	command |= PCI_COMMAND_MEMORY;
	if (pwrite(dev->config_fd, &command, 2, PCI_COMMAND) != 2)
		die("cannot set memory space enable");
}

static inline volatile uint8_t *bar_map(const struct device *dev, unsigned int bar)
{
	static volatile uint8_t *mapped[PCI_STD_NUM_BARS];
	char path[256];
	struct stat st;
	void *p;
	int fd;

	if (bar >= PCI_STD_NUM_BARS)
		die("capability names BAR %u", bar);
	if (mapped[bar])
		return mapped[bar];
	snprintf(path, sizeof(path), SYSFS_PCI "/%s/resource%u", dev->slot, bar);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0)
		die("cannot open %s", path);
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("cannot map %s", path);
	close(fd);
	mapped[bar] = p;
	return mapped[bar];
}

/*
 * Walks the capability list (PCI 3.0 §6.7) for the virtio vendor
 * capabilities (§4.1.4): struct virtio_pci_cap, and the notify multiplier
 * after it in the notification capability (§4.1.4.4).
 */
static inline void device_map(struct device *dev)
{
	uint8_t config[256];
	unsigned int at, steps = 0;

	if (pread(dev->config_fd, config, sizeof(config), 0) != (ssize_t)sizeof(config))
		die("cannot read config space");
	if (!(config[PCI_STATUS] & PCI_STATUS_CAP_LIST))
		die("no capability list");
	for (at = config[PCI_CAPABILITY_LIST] & ~3u; at && steps < CAP_WALK_MAX;
	     at = config[at + PCI_CAP_LIST_NEXT] & ~3u, steps++) {
		struct virtio_pci_cap cap;

		if (at + sizeof(cap) > sizeof(config))
			break;
		memcpy(&cap, config + at, sizeof(cap));
		if (cap.cap_vndr == PCI_CAP_ID_MSIX && !dev->msix_table) {
			uint32_t table;

			/* PCI 3.0 §6.8.2.4: BIR in bits 2:0, the offset in the rest. */
			memcpy(&table, config + at + PCI_MSIX_TABLE, 4);
			dev->msix_table = bar_map(dev, table & PCI_MSIX_TABLE_BIR) +
					  (table & PCI_MSIX_TABLE_OFFSET);
			dev->msix_cap = at;
		}
		if (cap.cap_vndr != PCI_CAP_ID_VNDR)
			continue;
		if (cap.cfg_type == VIRTIO_PCI_CAP_COMMON_CFG && !dev->common) {
			dev->common = bar_map(dev, cap.bar) + cap.offset;
		} else if (cap.cfg_type == VIRTIO_PCI_CAP_DEVICE_CFG && !dev->device_cfg) {
			dev->device_cfg = bar_map(dev, cap.bar) + cap.offset;
		} else if (cap.cfg_type == VIRTIO_PCI_CAP_NOTIFY_CFG && !dev->notify &&
			   at + sizeof(struct virtio_pci_notify_cap) <= sizeof(config)) {
			memcpy(&dev->notify_multiplier,
			       config + at + offsetof(struct virtio_pci_notify_cap,
						      notify_off_multiplier), 4);
			dev->notify = bar_map(dev, cap.bar) + cap.offset;
		}
	}
	errno = 0;
	if (!dev->common || !dev->notify)
		die("no common or notification capability");
}

/* Finds the function with PCI device ID pci_id, takes it from Linux and maps it. */
static inline void device_open(struct device *dev, unsigned int pci_id)
{
	char path[256];

	memset(dev, 0, sizeof(*dev));
	device_find(dev, pci_id);
	device_unbind(dev);
	snprintf(path, sizeof(path), SYSFS_PCI "/%s/config", dev->slot);
	dev->config_fd = open(path, O_RDWR);
	if (dev->config_fd < 0)
		die("cannot open %s", path);
	device_enable_memory(dev);
	device_map(dev);
}

static inline uint64_t gpa_of(const void *va)
{
	uint64_t entry;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0 || pread(fd, &entry, 8, (off_t)((uintptr_t)va / PAGE) * 8) != 8)
		die("cannot read /proc/self/pagemap");
	close(fd);
	/* Documentation/admin-guide/mm/pagemap.rst: bit 63 present, bits 0-54 the PFN. */
	if (!(entry >> 63) || !(entry & ((1ull << 55) - 1))) {
		errno = 0;
		die("no physical address for %p (not root?)", va);
	}
	return (entry & ((1ull << 55) - 1)) * PAGE;
}

/* Zeroed pages that stay where they are, so their addresses hold. */
static inline uint8_t *pages_alloc(unsigned int pages)
{
	uint8_t *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED || mlock(p, pages * PAGE) != 0)
		die("cannot allocate %u locked pages", pages);
	memset(p, 0, pages * PAGE);
	return p;
}

static inline void queue_alloc(struct queue *q)
{
	uint8_t *p = pages_alloc(3);

	q->desc = (struct vring_desc *)p;
	q->avail = (struct vring_avail *)(p + PAGE);
	q->used = (struct vring_used *)(p + 2 * PAGE);
	q->desc_gpa = gpa_of(q->desc);
	q->avail_gpa = gpa_of(q->avail);
	q->used_gpa = gpa_of(q->used);
}

/* The queue back to nothing published, nothing used: for after a reset. */
static inline void queue_clear(struct queue *q)
{
	memset(q->desc, 0, 3 * PAGE);
}

static inline uint8_t status_read(const struct device *dev)
{
	return mmio_read8(dev->common, VIRTIO_PCI_COMMON_STATUS);
}

static inline void status_add(const struct device *dev, uint8_t bits)
{
	mmio_write8(dev->common, VIRTIO_PCI_COMMON_STATUS, status_read(dev) | bits);
}

static inline void device_reset(const struct device *dev)
{
	mmio_write8(dev->common, VIRTIO_PCI_COMMON_STATUS, 0);
	for (int i = 0; status_read(dev) != 0 && i < WAIT_STEPS; i++)
		usleep(WAIT_STEP_US);	/* §4.1.4.3.2: reset is done when it reads 0 */
}

/*
 * The driver's initialisation after a reset (§3.1.1) up to FEATURES_OK,
 * with VERSION_1 alone. Returns whether the device took it.
 */
static inline bool device_negotiate(const struct device *dev)
{
	volatile uint8_t *c = dev->common;

	status_add(dev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	status_add(dev, VIRTIO_CONFIG_S_DRIVER);
	mmio_write32(c, VIRTIO_PCI_COMMON_GFSELECT, 0);
	mmio_write32(c, VIRTIO_PCI_COMMON_GF, 0);
	mmio_write32(c, VIRTIO_PCI_COMMON_GFSELECT, 1);
	mmio_write32(c, VIRTIO_PCI_COMMON_GF, 1u << (VIRTIO_F_VERSION_1 - 32));
	status_add(dev, VIRTIO_CONFIG_S_FEATURES_OK);
	return status_read(dev) & VIRTIO_CONFIG_S_FEATURES_OK;
}

/*
 * Queue index at q's pages, its descriptor table at desc_gpa (q's own, or
 * an address of the caller's choice), no interrupt vector (§4.1.4.3).
 */
static inline void queue_enable(const struct device *dev, unsigned int index,
				struct queue *q, uint64_t desc_gpa)
{
	volatile uint8_t *c = dev->common;
	uint16_t size;

	mmio_write16(c, VIRTIO_PCI_COMMON_Q_SELECT, (uint16_t)index);
	size = mmio_read16(c, VIRTIO_PCI_COMMON_Q_SIZE);
	if (size == 0 || size > QUEUE_SIZE_MAX)
		size = QUEUE_SIZE_MAX;	/* what the pages hold; the device says if it objects */
	mmio_write16(c, VIRTIO_PCI_COMMON_Q_SIZE, size);
	mmio_write16(c, VIRTIO_PCI_COMMON_Q_MSIX, VIRTIO_MSI_NO_VECTOR);
	mmio_write64(c, VIRTIO_PCI_COMMON_Q_DESCLO, desc_gpa);
	mmio_write64(c, VIRTIO_PCI_COMMON_Q_AVAILLO, q->avail_gpa);
	mmio_write64(c, VIRTIO_PCI_COMMON_Q_USEDLO, q->used_gpa);
	mmio_write16(c, VIRTIO_PCI_COMMON_Q_ENABLE, 1);
	q->size = size;
}

/* DRIVER_OK; returns the status the device then shows. */
static inline uint8_t device_driver_ok(const struct device *dev)
{
	status_add(dev, VIRTIO_CONFIG_S_DRIVER_OK);
	return status_read(dev);
}

/* The doorbell of queue index (§4.1.4.4: its notify offset times the multiplier). */
static inline void queue_notify(const struct device *dev, unsigned int index)
{
	mmio_write16(dev->common, VIRTIO_PCI_COMMON_Q_SELECT, (uint16_t)index);
	mmio_write16(dev->notify,
		     mmio_read16(dev->common, VIRTIO_PCI_COMMON_Q_NOFF) * dev->notify_multiplier,
		     (uint16_t)index);
}

/*
 * MSI-X on or off in the capability's Message Control, the function mask
 * clear (PCI 3.0 §6.8.2.3); Linux switched it off when it let go.
 */
static inline void msix_enable(const struct device *dev, bool on)
{
	uint16_t control;

	if (pread(dev->config_fd, &control, 2, dev->msix_cap + PCI_MSIX_FLAGS) != 2)
		die("cannot read MSI-X Message Control");
	control &= (uint16_t)~(PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	if (on)
		control |= PCI_MSIX_FLAGS_ENABLE;
	if (pwrite(dev->config_fd, &control, 2, dev->msix_cap + PCI_MSIX_FLAGS) != 2)
		die("cannot write MSI-X Message Control");
}

/* A table entry's message, masked while it changes, then masked or not (PCI 3.0 §6.8.2.5-9). */
static inline void msix_entry_set(const struct device *dev, unsigned int entry,
				  uint64_t address, uint32_t data, bool masked)
{
	unsigned int at = entry * PCI_MSIX_ENTRY_SIZE;

	mmio_write32(dev->msix_table, at + PCI_MSIX_ENTRY_VECTOR_CTRL,
		     PCI_MSIX_ENTRY_CTRL_MASKBIT);
	mmio_write32(dev->msix_table, at + PCI_MSIX_ENTRY_LOWER_ADDR, (uint32_t)address);
	mmio_write32(dev->msix_table, at + PCI_MSIX_ENTRY_UPPER_ADDR, (uint32_t)(address >> 32));
	mmio_write32(dev->msix_table, at + PCI_MSIX_ENTRY_DATA, data);
	if (!masked)
		mmio_write32(dev->msix_table, at + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

/*
 * Queue index's MSI-X vector (§4.1.4.3: a table entry, or NO_VECTOR);
 * returns what the device reads back, NO_VECTOR if it could not map it.
 */
static inline uint16_t queue_vector(const struct device *dev, unsigned int index,
				    uint16_t vector)
{
	mmio_write16(dev->common, VIRTIO_PCI_COMMON_Q_SELECT, (uint16_t)index);
	mmio_write16(dev->common, VIRTIO_PCI_COMMON_Q_MSIX, vector);
	return mmio_read16(dev->common, VIRTIO_PCI_COMMON_Q_MSIX);
}

static inline void desc_set(struct queue *q, unsigned int i, uint64_t addr, uint32_t len,
			    uint16_t flags, uint16_t next)
{
	q->desc[i] = (struct vring_desc){ .addr = addr, .len = len, .flags = flags, .next = next };
}

#endif
