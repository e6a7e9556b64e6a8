/* SPDX-License-Identifier: MIT */
/*
 * badring - a hostile virtio-net driver, run as root inside a guest.
 *
 * It takes the guest's virtio-net PCI function away from Linux's
 * virtio-pci driver, drives the modern virtio-pci transport itself through
 * the function's BAR (virtio 1.2 §4.1.4), and publishes malformed transmit
 * chains, one case per device reset. After each case it prints
 *
 *   badring: CASE -> status 0xSS used N
 *
 * the device status (0x40 is DEVICE_NEEDS_RESET, §2.1) and the used index
 * the device reached, then "badring: done". What the device makes of each
 * case is reported, not judged: the point is what the hypervisor survives.
 *
 * usage: badring [CASE...]   (default: every case; see cases[] below)
 */
#define _GNU_SOURCE
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
#define VIRTIO_NET_PCI	0x1041		/* §4.1.2: 0x1040 + device ID 1 */
#define TX_QUEUE	1		/* §5.1.2: receiveq1 is 0, transmitq1 is 1 */
#define QUEUE_SIZE	256		/* 16-byte descriptors: one page */
#define PAGE		4096u
#define CAP_WALK_MAX	48		/* a 256-byte space holds at most 48 capabilities */
#define WAIT_STEPS	250		/* 20 ms each: 5 s for the device to look */
#define WAIT_STEP_US	20000
#define BUF_LEN		64u		/* virtio_net_hdr_v1 + a 52-byte frame */
/* Far above any guest's RAM (and any physical address width we run on). */
#define GPA_OUTSIDE_RAM	(1ull << 44)

/* The BAR regions the capabilities point at (§4.1.4). */
struct device {
	char slot[64];			/* sysfs name, e.g. 0000:00:01.0 */
	volatile uint8_t *common;	/* struct virtio_pci_common_cfg */
	volatile uint8_t *notify;
	uint32_t notify_multiplier;
};

/* The rings and one buffer, a page each, with their guest-physical addresses. */
struct rings {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint8_t *buf;
	uint64_t desc_gpa, avail_gpa, used_gpa, buf_gpa;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("badring: error: ", stdout);
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
static uint8_t mmio_read8(volatile uint8_t *base, unsigned int off)
{
	uint8_t v;

	__asm__ volatile("movb %1, %0" : "=q"(v) : "m"(*(volatile uint8_t *)(base + off)));
	return v;
}

static uint16_t mmio_read16(volatile uint8_t *base, unsigned int off)
{
	uint16_t v;

	__asm__ volatile("movw %1, %0" : "=r"(v) : "m"(*(volatile uint16_t *)(base + off)));
	return v;
}

static void mmio_write8(volatile uint8_t *base, unsigned int off, uint8_t v)
{
	__asm__ volatile("movb %1, %0" : "=m"(*(volatile uint8_t *)(base + off)) : "q"(v)
			 : "memory");
}

static void mmio_write16(volatile uint8_t *base, unsigned int off, uint16_t v)
{
	__asm__ volatile("movw %1, %0" : "=m"(*(volatile uint16_t *)(base + off)) : "r"(v)
			 : "memory");
}

static void mmio_write32(volatile uint8_t *base, unsigned int off, uint32_t v)
{
	__asm__ volatile("movl %1, %0" : "=m"(*(volatile uint32_t *)(base + off)) : "r"(v)
			 : "memory");
}

static void mmio_write64(volatile uint8_t *base, unsigned int off, uint64_t v)
{
	/* §4.1.3.1: 64-bit fields may be written as two 32-bit halves, low first. */
	mmio_write32(base, off, (uint32_t)v);
	mmio_write32(base, off + 4, (uint32_t)(v >> 32));
}

static unsigned long sysfs_read_hex(const char *slot, const char *file)
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

static void sysfs_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die("cannot write '%s' to %s", text, path);
	close(fd);
}

static void device_find(struct device *dev)
{
	DIR *d = opendir(SYSFS_PCI);
	struct dirent *e;

	if (!d)
		die("cannot list " SYSFS_PCI);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(dev->slot))
			continue;
		if (sysfs_read_hex(e->d_name, "vendor") == VIRTIO_VENDOR &&
		    sysfs_read_hex(e->d_name, "device") == VIRTIO_NET_PCI) {
			strcpy(dev->slot, e->d_name);
			closedir(d);
			return;
		}
	}
	closedir(d);
	errno = 0;
	die("no virtio-net PCI function (vendor %#x device %#x)", VIRTIO_VENDOR, VIRTIO_NET_PCI);
}

/* Linux's driver lets go of the function: from here on it is ours alone. */
static void device_unbind(const struct device *dev)
{
	char path[256];

	snprintf(path, sizeof(path), SYSFS_PCI "/%s/driver", dev->slot);
	if (access(path, F_OK) != 0)
		return;
	snprintf(path, sizeof(path), SYSFS_PCI "/%s/driver/unbind", dev->slot);
	sysfs_write(path, dev->slot);
}

/* Memory space decoding on (PCI 3.0 §6.2.2), through the config file if need be. */
static void device_enable_memory(const struct device *dev, int config_fd)
{
	char path[256];
	uint16_t command;

	snprintf(path, sizeof(path), SYSFS_PCI "/%s/enable", dev->slot);
	sysfs_write(path, "1");
	if (pread(config_fd, &command, 2, PCI_COMMAND) != 2)
		die("cannot read the command register");
	if (command & PCI_COMMAND_MEMORY)
		return;
	command |= PCI_COMMAND_MEMORY;
	if (pwrite(config_fd, &command, 2, PCI_COMMAND) != 2)
		die("cannot set memory space enable");
}

static volatile uint8_t *bar_map(const struct device *dev, unsigned int bar)
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
static void device_map(struct device *dev, int config_fd)
{
	uint8_t config[256];
	unsigned int at, steps = 0;

	if (pread(config_fd, config, sizeof(config), 0) != (ssize_t)sizeof(config))
		die("cannot read config space");
	if (!(config[PCI_STATUS] & PCI_STATUS_CAP_LIST))
		die("no capability list");
	for (at = config[PCI_CAPABILITY_LIST] & ~3u; at && steps < CAP_WALK_MAX;
	     at = config[at + PCI_CAP_LIST_NEXT] & ~3u, steps++) {
		struct virtio_pci_cap cap;

		if (at + sizeof(cap) > sizeof(config))
			break;
		memcpy(&cap, config + at, sizeof(cap));
		if (cap.cap_vndr != PCI_CAP_ID_VNDR)
			continue;
		if (cap.cfg_type == VIRTIO_PCI_CAP_COMMON_CFG && !dev->common) {
			dev->common = bar_map(dev, cap.bar) + cap.offset;
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

static uint64_t gpa_of(const void *va)
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

static void rings_alloc(struct rings *r)
{
	uint8_t *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED || mlock(p, 4 * PAGE) != 0)
		die("cannot allocate locked ring pages");
	memset(p, 0, 4 * PAGE);
	r->desc = (struct vring_desc *)p;
	r->avail = (struct vring_avail *)(p + PAGE);
	r->used = (struct vring_used *)(p + 2 * PAGE);
	r->buf = p + 3 * PAGE;
	r->desc_gpa = gpa_of(r->desc);
	r->avail_gpa = gpa_of(r->avail);
	r->used_gpa = gpa_of(r->used);
	r->buf_gpa = gpa_of(r->buf);
}

static uint8_t status_read(const struct device *dev)
{
	return mmio_read8(dev->common, VIRTIO_PCI_COMMON_STATUS);
}

static void status_add(const struct device *dev, uint8_t bits)
{
	mmio_write8(dev->common, VIRTIO_PCI_COMMON_STATUS, status_read(dev) | bits);
}

static void device_reset(const struct device *dev)
{
	mmio_write8(dev->common, VIRTIO_PCI_COMMON_STATUS, 0);
	for (int i = 0; status_read(dev) != 0 && i < WAIT_STEPS; i++)
		usleep(WAIT_STEP_US);	/* §4.1.4.3.2: reset is done when it reads 0 */
}

/*
 * The driver's initialisation after a reset (§3.1.1) with VERSION_1 alone,
 * the transmit queue at desc_gpa, then DRIVER_OK. Returns the status reached.
 */
static uint8_t device_setup(const struct device *dev, const struct rings *r, uint64_t desc_gpa)
{
	volatile uint8_t *c = dev->common;
	uint16_t size;

	status_add(dev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	status_add(dev, VIRTIO_CONFIG_S_DRIVER);
	mmio_write32(c, VIRTIO_PCI_COMMON_GFSELECT, 0);
	mmio_write32(c, VIRTIO_PCI_COMMON_GF, 0);
	mmio_write32(c, VIRTIO_PCI_COMMON_GFSELECT, 1);
	mmio_write32(c, VIRTIO_PCI_COMMON_GF, 1u << (VIRTIO_F_VERSION_1 - 32));
	status_add(dev, VIRTIO_CONFIG_S_FEATURES_OK);
	if (!(status_read(dev) & VIRTIO_CONFIG_S_FEATURES_OK))
		return status_read(dev);
	mmio_write16(c, VIRTIO_PCI_COMMON_Q_SELECT, TX_QUEUE);
	size = mmio_read16(c, VIRTIO_PCI_COMMON_Q_SIZE);
	if (size == 0 || size > QUEUE_SIZE)
		size = QUEUE_SIZE;	/* what the pages hold; the device says if it objects */
	mmio_write16(c, VIRTIO_PCI_COMMON_Q_SIZE, size);
	mmio_write16(c, VIRTIO_PCI_COMMON_Q_MSIX, VIRTIO_MSI_NO_VECTOR);
	mmio_write64(c, VIRTIO_PCI_COMMON_Q_DESCLO, desc_gpa);
	mmio_write64(c, VIRTIO_PCI_COMMON_Q_AVAILLO, r->avail_gpa);
	mmio_write64(c, VIRTIO_PCI_COMMON_Q_USEDLO, r->used_gpa);
	mmio_write16(c, VIRTIO_PCI_COMMON_Q_ENABLE, 1);
	status_add(dev, VIRTIO_CONFIG_S_DRIVER_OK);
	return status_read(dev);
}

static void desc_set(struct rings *r, unsigned int i, uint64_t addr, uint32_t len,
		     uint16_t flags, uint16_t next)
{
	r->desc[i] = (struct vring_desc){ .addr = addr, .len = len, .flags = flags, .next = next };
}

/* Makes entries [0, count) of the available ring visible up to index idx. */
static void avail_publish(struct rings *r, unsigned int count, uint16_t idx)
{
	for (unsigned int i = 0; i < count; i++)
		r->avail->ring[i] = (uint16_t)i;
	/* §2.6.13.2: the ring entries before the index that covers them. */
	__atomic_store_n(&r->avail->idx, idx, __ATOMIC_RELEASE);
}

static void case_zero_length(struct rings *r)
{
	desc_set(r, 0, r->buf_gpa, 0, 0, 0);
	avail_publish(r, 1, 1);
}

static void case_writable_first(struct rings *r)
{
	desc_set(r, 0, r->buf_gpa, BUF_LEN, VRING_DESC_F_WRITE, 0);
	avail_publish(r, 1, 1);
}

static void case_outside_ram(struct rings *r)
{
	desc_set(r, 0, GPA_OUTSIDE_RAM, BUF_LEN, 0, 0);
	avail_publish(r, 1, 1);
}

static void case_next_loop(struct rings *r)
{
	desc_set(r, 0, r->buf_gpa, BUF_LEN / 2, VRING_DESC_F_NEXT, 1);
	desc_set(r, 1, r->buf_gpa + BUF_LEN / 2, BUF_LEN / 2, VRING_DESC_F_NEXT, 0);
	avail_publish(r, 1, 1);
}

static void case_avail_ahead(struct rings *r)
{
	desc_set(r, 0, r->buf_gpa, BUF_LEN, 0, 0);
	/* §2.6.6: the driver is never more than the queue size ahead. */
	avail_publish(r, 1, (uint16_t)(QUEUE_SIZE * 128));
}

/* A case either publishes a chain, or (fill NULL) puts the rings outside RAM. */
struct ring_case {
	const char *name;
	void (*fill)(struct rings *r);
};

static const struct ring_case cases[] = {
	{ "zero-length", case_zero_length },
	{ "writable-first", case_writable_first },
	{ "outside-ram", case_outside_ram },
	{ "next-loop", case_next_loop },
	{ "avail-ahead", case_avail_ahead },
	{ "ring-outside-ram", NULL },
};

/*
 * The buffer holds a zero virtio_net_hdr_v1 (§5.1.6) and a frame to a
 * locally administered address no guest has, so nothing would reach
 * anyone should a device forward it.
 */
static void buffer_fill(uint8_t *buf)
{
	static const uint8_t frame[14] = { 0x02, 0, 0, 0, 0, 0xfe, 0x02, 0, 0, 0, 0, 0xfd,
					   0x88, 0xb5 };	/* IEEE 802 local experimental */

	memset(buf, 0, PAGE);
	memcpy(buf + 12, frame, sizeof(frame));
}

static void case_run(const struct device *dev, struct rings *r, const struct ring_case *rc)
{
	uint8_t status;
	uint16_t used = 0;

	/* The rings are rewritten only once the device has let go of them. */
	device_reset(dev);
	memset(r->desc, 0, 3 * PAGE);
	buffer_fill(r->buf);
	status = device_setup(dev, r, rc->fill ? r->desc_gpa : GPA_OUTSIDE_RAM);
	if (rc->fill && (status & VIRTIO_CONFIG_S_DRIVER_OK)) {
		rc->fill(r);
		mmio_write16(dev->notify,
			     mmio_read16(dev->common, VIRTIO_PCI_COMMON_Q_NOFF) *
			     dev->notify_multiplier, TX_QUEUE);
		for (int i = 0; i < WAIT_STEPS; i++) {
			status = status_read(dev);
			used = __atomic_load_n(&r->used->idx, __ATOMIC_ACQUIRE);
			if (status & VIRTIO_CONFIG_S_NEEDS_RESET || used)
				break;
			usleep(WAIT_STEP_US);
		}
	}
	printf("badring: %s -> status 0x%02x used %u\n", rc->name, status, used);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct device dev = { 0 };
	struct rings r;
	char path[256];
	int config_fd;

	device_find(&dev);
	device_unbind(&dev);
	snprintf(path, sizeof(path), SYSFS_PCI "/%s/config", dev.slot);
	config_fd = open(path, O_RDWR);
	if (config_fd < 0)
		die("cannot open %s", path);
	device_enable_memory(&dev, config_fd);
	device_map(&dev, config_fd);
	rings_alloc(&r);
	printf("badring: %s: rings at %#llx %#llx %#llx, buffer at %#llx\n", dev.slot,
	       (unsigned long long)r.desc_gpa, (unsigned long long)r.avail_gpa,
	       (unsigned long long)r.used_gpa, (unsigned long long)r.buf_gpa);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool wanted = argc < 2;

		for (int a = 1; a < argc; a++)
			wanted |= strcmp(argv[a], cases[i].name) == 0;
		if (wanted)
			case_run(&dev, &r, &cases[i]);
	}
	device_reset(&dev);
	puts("badring: done");
	return 0;
}
