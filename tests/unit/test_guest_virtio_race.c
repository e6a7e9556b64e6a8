/* SPDX-License-Identifier: MIT */
/*
 * test_guest_virtio_race.c - a virtio function's BAR and config paths
 * (through the guest's device registry and its PCI bus) entered from two
 * vCPUs while its server (the sidecore for virtio-net and virtio-vsock, a
 * third vCPU for the console) raises interrupts, each taking the locks
 * production takes; for each of the three devices. The function's state
 * is one core's at a time: MSI-X messages leave one at a time, and
 * nothing strays outside the function.
 * A guest of four vCPUs gets a queue pair each: every queue's message
 * reaches the vCPU its vector names, and control commands a vCPU waits for
 * are answered by the sidecore's pass while vCPUs rewrite vectors and kick.
 *
 * guest_net.c, guest_vsock.c, guest_virtio.c and guest_device.c are glue,
 * not pure modules: they are compiled in here, with stand-ins for the
 * console, the TSC, the sidecore's wake-up and the vCPUs they call.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/pci_regs.h>
#include <linux/virtio_config.h>

#include "guest/guest_device.c"
#include "guest/guest_net.c"
#include "guest/guest_virtio.c"
#include "guest/guest_vsock.c"
#include "tests/unit/support/glue_stubs.h"
#include "tests/unit/support/vring_driver.h"
#include "virtio/virtio_console.h"

#define BAR_MSIX_TABLE	0x3000	/* where virtio_pci.c puts the table */
#define GUEST_RAM	(1u << 20)
#define POOL_BYTES	(4u << 20)
#define CID		3
#define MSI_VECTOR	0x30

#define ROUNDS		8
#define MSI_SPIN	20000	/* sending an interrupt: its work, in loop turns */
#define MSI_YIELDS	2	/* turns it offers another core to come in */
#define THREADS		3
#define BURST		4	/* config changes the sidecore reports while unmasked */

#define MQ_VCPUS	4
#define MQ_QUEUES	(2 * MQ_VCPUS + 1)	/* the control queue last */
#define MQ_RING		64
#define MQ_AREA		0x10000u		/* guest RAM per ring */
#define CTRL_ROUNDS	64
#define NOTIFY		0x2000			/* where virtio_pci.c puts the slots */
#define NOTIFY_MULT	4
#define DEVICE_CONFIG	0x1000

static struct net_switch test_switch;
static int in_post, post_overlaps;
static unsigned long posts, wrong_vectors;
static unsigned long per_vcpu[GUEST_MAX_VCPUS];

/* Sending to a vCPU on another core: an IPI's worth of work. */
void vcpu_send_interrupt(struct vcpu *v, uint8_t vector)
{
	(void)v;
	if (__atomic_fetch_add(&in_post, 1, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&post_overlaps, 1, __ATOMIC_RELAXED);
	if (vector != MSI_VECTOR)
		__atomic_fetch_add(&wrong_vectors, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&per_vcpu[v->index], 1, __ATOMIC_RELAXED);
	for (volatile unsigned int i = 0; i < MSI_SPIN; i++)
		;
	for (unsigned int i = 0; i < MSI_YIELDS &&
	     __atomic_load_n(&in_post, __ATOMIC_ACQUIRE) < 2; i++)
		sched_yield();
	__atomic_fetch_add(&posts, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&in_post, 1, __ATOMIC_ACQ_REL);
}

struct world {
	struct guest guest;
	struct config_guest config;
	struct sidecore sidecore;
	void *pool_memory;
	struct guest_virtio *dev;	/* the device under test */
	pthread_barrier_t round;
};

static uint64_t bar_access(struct world *w, uint64_t offset, unsigned int size, bool write,
			   uint64_t value)
{
	uint64_t bar0 = GUEST_PCI_MMIO_GPA + w->dev->dev.slot * VIRTIO_PCI_BAR_SIZE;
	bool notify;

	assert_true(guest_device_mmio(&w->guest, bar0 + offset, size, write, &value, &notify));
	return value;
}

/* A config access as a vCPU makes it: the bus takes its lock, then the function's. */
static void config_write(struct world *w, unsigned int reg, unsigned int size, uint32_t value)
{
	vpci_ecam_write(&w->guest.pci, (uint64_t)w->dev->dev.slot << 15 | reg, size, value);
}

static uint32_t config_read(struct world *w, unsigned int reg, unsigned int size)
{
	return vpci_ecam_read(&w->guest.pci, (uint64_t)w->dev->dev.slot << 15 | reg, size);
}

/* The MSI-X capability's message control, found the way a driver finds it. */
static unsigned int msix_flags(struct world *w)
{
	unsigned int cap = config_read(w, PCI_CAPABILITY_LIST, 1);

	while (cap && config_read(w, cap, 1) != PCI_CAP_ID_MSIX)
		cap = config_read(w, cap + 1, 1);
	assert_int_not_equal(cap, 0);
	return cap + PCI_MSIX_FLAGS;
}

/* A driver's bring-up: memory decoding, MSI-X vector 0 for config changes, DRIVER_OK. */
static void driver_start(struct world *w)
{
	config_write(w, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	config_write(w, msix_flags(w), 2, PCI_MSIX_FLAGS_ENABLE);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_LOWER_ADDR, 4, true, MSI_ADDRESS_BASE);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_UPPER_ADDR, 4, true, 0);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_DATA, 4, true, MSI_VECTOR);
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, true, 0);
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true,
		   VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	bar_access(w, VIRTIO_PCI_COMMON_GFSELECT, 4, true, 1);
	bar_access(w, VIRTIO_PCI_COMMON_GF, 4, true, 1);	/* VERSION_1, bit 32 */
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true, VIRTIO_CONFIG_S_ACKNOWLEDGE |
		   VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK);
	bar_access(w, VIRTIO_PCI_COMMON_MSIX, 2, true, 0);
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true, VIRTIO_CONFIG_S_ACKNOWLEDGE |
		   VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK |
		   VIRTIO_CONFIG_S_DRIVER_OK);
	assert_int_equal(bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, false, 0) &
			 VIRTIO_CONFIG_S_DRIVER_OK, VIRTIO_CONFIG_S_DRIVER_OK);
}

/*
 * The device's server: a config change to report, under the lock that
 * guards the device, as in the sidecore's poll pass or a console kick.
 */
static void sidecore_signal(struct world *w)
{
	spin_lock(w->dev->guard);
	guest_virtio_interrupt(w->dev->vdev, VIRTIO_DEV_CONFIG_CHANGE);
	if (w->dev->sidecore)
		sidecore_flush_ports(w->dev->sidecore, 0);
	spin_unlock(w->dev->guard);
}

static void sidecore_burst(struct world *w)
{
	for (unsigned int i = 0; i < BURST; i++)
		sidecore_signal(w);
}

static void vector_mask(struct world *w)
{
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, true,
		   PCI_MSIX_ENTRY_CTRL_MASKBIT);
}

/* Unmasking sends the message left pending, while the sidecore sends more. */
static void vector_unmask(struct world *w)
{
	bar_access(w, BAR_MSIX_TABLE + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, true, 0);
}

/* Another vCPU reads what the sidecore changes, selects queues, rewrites MSI-X control. */
static void reader_round(struct world *w)
{
	bar_access(w, VIRTIO_PCI_COMMON_CFGGENERATION, 1, false, 0);
	bar_access(w, VIRTIO_PCI_COMMON_Q_SELECT, 2, true, 1);
	bar_access(w, VIRTIO_PCI_COMMON_Q_MSIX, 2, false, 0);
	config_write(w, msix_flags(w), 2, PCI_MSIX_FLAGS_ENABLE);
}

/*
 * Each round has two phases, barriers between: first the vector is masked
 * and a change left pending in the PBA; then, all at once, one vCPU unmasks
 * it, the sidecore reports more changes and another vCPU reads.
 */
struct worker {
	struct world *world;
	void (*first)(struct world *w);
	void (*second)(struct world *w);
};

static void *worker_run(void *arg)
{
	struct worker *wk = arg;

	for (unsigned int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&wk->world->round);
		if (wk->first)
			wk->first(wk->world);
		pthread_barrier_wait(&wk->world->round);
		wk->second(wk->world);
	}
	return NULL;
}

/*
 * A guest of vcpus vCPUs (APIC IDs 0, 1, ...) with its devices as boot
 * gives them (hv/init/guests.c): its NIC and vsock device on a sidecore of
 * its own, its console; the one of type ops is under test.
 */
static struct world *world_new(unsigned int vcpus, const struct virtio_dev_ops *ops)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 1 };
	static const uint32_t no_storm_limit[2] = { 0, 0 };
	struct world *w = aligned_alloc(_Alignof(struct world), sizeof(struct world));
	void *ram = test_calloc(1, GUEST_RAM);
	struct guest *g;

	assert_non_null(w);
	assert_non_null(ram);
	memset(w, 0, sizeof(*w));
	w->pool_memory = aligned_alloc(PAGE_SIZE, POOL_BYTES);
	assert_non_null(w->pool_memory);
	page_alloc_init(1);
	page_pool_add(page_alloc_pool(0), (uintptr_t)w->pool_memory, POOL_BYTES);
	memset(&guest_vsock_table, 0, sizeof(guest_vsock_table));
	g = &w->guest;
	net_switch_init(&test_switch);
	strcpy(g->name, "race");
	g->config = &w->config;
	g->ram_hpa = (uintptr_t)ram;
	g->ram_size = GUEST_RAM;
	g->vcpu_count = vcpus;
	for (unsigned int i = 0; i < vcpus; i++)
		g->vcpu[i] = (struct vcpu){ .guest = g, .index = i, .apic_id = i };
	vpci_bus_init(&g->pci);
	w->sidecore.sw = &test_switch;
	w->sidecore.tx_holdoff = 1000;	/* 1 ms, the sidecore's, on a 1 MHz TSC */
	assert_true(guest_net_create(g, &w->sidecore, mac, false, no_storm_limit));
	assert_non_null(guest_virtio_create(g, NULL, &virtio_console_ops, NULL));
	assert_true(guest_vsock_create(g, &w->sidecore, CID));
	assert_int_equal(w->sidecore.port_count, 2);
	w->dev = (struct guest_virtio *)guest_virtio_find(g, ops);
	assert_non_null(w->dev);
	return w;
}

static void world_free(struct world *w)
{
	guest_device_remove_all(&w->guest);
	test_free((void *)(uintptr_t)w->guest.ram_hpa);
	free(w->pool_memory);
	free(w);
}

static void bar_path_race(const struct virtio_dev_ops *ops)
{
	const struct worker roles[THREADS] = {
		{ .first = vector_mask, .second = vector_unmask },
		{ .first = sidecore_signal, .second = sidecore_burst },
		{ .second = reader_round },
	};
	struct worker worker[THREADS];
	pthread_t thread[THREADS];
	struct world *w = world_new(1, ops);

	driver_start(w);
	posts = 0;

	assert_int_equal(pthread_barrier_init(&w->round, NULL, THREADS), 0);
	for (unsigned int i = 0; i < THREADS; i++) {
		worker[i] = roles[i];
		worker[i].world = w;
		assert_int_equal(pthread_create(&thread[i], NULL, worker_run, &worker[i]), 0);
	}
	for (unsigned int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(thread[i], NULL), 0);
	pthread_barrier_destroy(&w->round);

	assert_int_equal(post_overlaps, 0);
	assert_int_equal(wrong_vectors, 0);
	assert_int_equal(w->dev->bad_msi, 0);
	/* Each change was sent, or waits in the PBA for the vector's unmasking. */
	assert_true(posts >= ROUNDS && posts <= ROUNDS * (BURST + 1));
	world_free(w);
}

static void test_net_bar_path_races_sidecore(void **state)
{
	(void)state;
	bar_path_race(&virtio_net_ops);
}

static void test_vsock_bar_path_races_sidecore(void **state)
{
	(void)state;
	bar_path_race(&virtio_vsock_ops);
}

static void test_console_bar_path_races_kicking_vcpu(void **state)
{
	(void)state;
	bar_path_race(&virtio_console_ops);
}

/* --- a queue pair per vCPU ----------------------------------------------------- */

struct mq_driver {
	struct world *world;
	struct guest_mem mem;
	struct vring_driver q[MQ_QUEUES];
	unsigned int answered, refused, kicks;
	int done;
};

/* MSI-X entry vector: MSI_VECTOR to the vCPU of APIC ID apic_id, unmasked. */
static void msix_entry(struct world *w, unsigned int vector, unsigned int apic_id)
{
	uint64_t entry = BAR_MSIX_TABLE + vector * PCI_MSIX_ENTRY_SIZE;

	bar_access(w, entry + PCI_MSIX_ENTRY_LOWER_ADDR, 4, true,
		   MSI_ADDRESS_BASE | apic_id << 12);
	bar_access(w, entry + PCI_MSIX_ENTRY_UPPER_ADDR, 4, true, 0);
	bar_access(w, entry + PCI_MSIX_ENTRY_DATA, 4, true, MSI_VECTOR);
	bar_access(w, entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 4, true, 0);
}

static void queue_address(struct world *w, unsigned int lo, uint64_t gpa)
{
	bar_access(w, lo, 4, true, (uint32_t)gpa);
	bar_access(w, lo + 4, 4, true, gpa >> 32);
}

/*
 * Linux's bring-up of a multiqueue NIC: CTRL_VQ and MQ, a vector per data
 * queue aimed at the vCPU of its pair (virtnet_set_affinity()), none for
 * the control queue, every queue enabled, DRIVER_OK.
 */
static void driver_start_mq(struct mq_driver *d)
{
	struct world *w = d->world;
	const uint32_t features = 1u << VIRTIO_NET_F_CTRL_VQ | 1u << VIRTIO_NET_F_MQ;

	d->mem = (struct guest_mem){ (uint8_t *)(uintptr_t)w->guest.ram_hpa, GUEST_RAM, NULL };
	config_write(w, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	config_write(w, msix_flags(w), 2, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal((config_read(w, msix_flags(w), 2) & PCI_MSIX_FLAGS_QSIZE) + 1,
			 MQ_QUEUES + 1);
	for (unsigned int v = 0; v < MQ_QUEUES; v++)
		msix_entry(w, v, v ? (v - 1) / 2 : 0);
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true,
		   VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER);
	bar_access(w, VIRTIO_PCI_COMMON_DFSELECT, 4, true, 0);
	assert_int_equal(bar_access(w, VIRTIO_PCI_COMMON_DF, 4, false, 0) & features, features);
	assert_int_equal(bar_access(w, DEVICE_CONFIG +
				    offsetof(struct virtio_net_config, max_virtqueue_pairs),
				    2, false, 0), MQ_VCPUS);
	bar_access(w, VIRTIO_PCI_COMMON_GFSELECT, 4, true, 0);
	bar_access(w, VIRTIO_PCI_COMMON_GF, 4, true, features);
	bar_access(w, VIRTIO_PCI_COMMON_GFSELECT, 4, true, 1);
	bar_access(w, VIRTIO_PCI_COMMON_GF, 4, true, 1);	/* VERSION_1, bit 32 */
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true, VIRTIO_CONFIG_S_ACKNOWLEDGE |
		   VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK);
	bar_access(w, VIRTIO_PCI_COMMON_MSIX, 2, true, 0);
	assert_int_equal(bar_access(w, VIRTIO_PCI_COMMON_NUMQ, 2, false, 0), MQ_QUEUES);
	for (unsigned int i = 0; i < MQ_QUEUES; i++) {
		struct vring_driver *q = &d->q[i];

		vring_driver_init(q, &d->mem, MQ_RING, i * MQ_AREA, (i + 1) * MQ_AREA);
		bar_access(w, VIRTIO_PCI_COMMON_Q_SELECT, 2, true, i);
		bar_access(w, VIRTIO_PCI_COMMON_Q_SIZE, 2, true, MQ_RING);
		queue_address(w, VIRTIO_PCI_COMMON_Q_DESCLO, q->desc_gpa);
		queue_address(w, VIRTIO_PCI_COMMON_Q_AVAILLO, q->avail_gpa);
		queue_address(w, VIRTIO_PCI_COMMON_Q_USEDLO, q->used_gpa);
		bar_access(w, VIRTIO_PCI_COMMON_Q_MSIX, 2, true,
			   i == MQ_QUEUES - 1 ? VIRTIO_MSI_NO_VECTOR : i + 1);
		bar_access(w, VIRTIO_PCI_COMMON_Q_ENABLE, 2, true, 1);
	}
	bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, true, VIRTIO_CONFIG_S_ACKNOWLEDGE |
		   VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK |
		   VIRTIO_CONFIG_S_DRIVER_OK);
	assert_int_equal(bar_access(w, VIRTIO_PCI_COMMON_STATUS, 1, false, 0),
			 VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
			 VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK);
}

/* Each data queue's interrupt reaches the vCPU of its pair, and only that one. */
static void test_multiqueue_vectors_reach_their_vcpus(void **state)
{
	struct mq_driver *d = test_calloc(1, sizeof(*d));

	(void)state;
	assert_non_null(d);
	d->world = world_new(MQ_VCPUS, &virtio_net_ops);
	driver_start_mq(d);
	memset(per_vcpu, 0, sizeof(per_vcpu));
	wrong_vectors = 0;
	for (unsigned int q = 0; q < 2 * MQ_VCPUS; q++) {
		spin_lock(&d->world->sidecore.lock);
		guest_virtio_interrupt(d->world->dev->vdev, q);
		spin_unlock(&d->world->sidecore.lock);
	}
	for (unsigned int v = 0; v < MQ_VCPUS; v++)
		assert_int_equal(per_vcpu[v], 2);
	assert_int_equal(wrong_vectors, 0);
	assert_int_equal(d->world->dev->bad_msi, 0);
	world_free(d->world);
	test_free(d);
}

/* Posts VQ_PAIRS_SET pairs on the control queue as virtnet_send_command() does. */
static uint8_t *ctrl_post(struct mq_driver *d, unsigned int pairs)
{
	struct vring_driver *c = &d->q[MQ_QUEUES - 1];
	uint64_t cmd = vring_driver_alloc(c, 4), ack = vring_driver_alloc(c, 1);
	uint8_t *p = vring_driver_ptr(c, cmd);
	struct vring_buf bufs[3] = {
		{ cmd, 2, false }, { cmd + 2, 2, false }, { ack, 1, true },
	};

	p[0] = VIRTIO_NET_CTRL_MQ;
	p[1] = VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET;
	p[2] = (uint8_t)pairs;
	p[3] = 0;
	*(uint8_t *)vring_driver_ptr(c, ack) = 0xee;
	vring_driver_post(c, bufs, 3, false);
	return vring_driver_ptr(c, ack);
}

static void kick(struct mq_driver *d, unsigned int queue)
{
	bar_access(d->world, NOTIFY + queue * NOTIFY_MULT, 2, true, queue);
	__atomic_fetch_add(&d->kicks, 1, __ATOMIC_RELAXED);
}

/*
 * A vCPU sends commands and spins for each answer, moving a queue's vector
 * to another vCPU (an affinity change) between them; its heap in the ring
 * area is reused, since every command is answered before the next.
 */
static void *mq_commander(void *arg)
{
	struct mq_driver *d = arg;
	struct vring_driver *c = &d->q[MQ_QUEUES - 1];
	uint64_t heap = c->heap;

	for (unsigned int i = 0; i < CTRL_ROUNDS; i++) {
		uint8_t *ack = ctrl_post(d, 1 + i % MQ_VCPUS);
		uint32_t id, len;

		kick(d, MQ_QUEUES - 1);
		while (!vring_driver_take_used(c, &id, &len))
			sched_yield();
		if (len == 1 && __atomic_load_n(ack, __ATOMIC_ACQUIRE) == VIRTIO_NET_OK)
			d->answered++;
		else
			d->refused++;
		c->heap = heap;
		msix_entry(d->world, 1 + i % (2 * MQ_VCPUS), i % MQ_VCPUS);
	}
	__atomic_store_n(&d->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Another vCPU reads the queue registers and the config, and kicks transmitqs. */
static void *mq_reader(void *arg)
{
	struct mq_driver *d = arg;
	struct world *w = d->world;

	for (unsigned int i = 0; !__atomic_load_n(&d->done, __ATOMIC_ACQUIRE); i++) {
		bar_access(w, VIRTIO_PCI_COMMON_Q_SELECT, 2, true, i % MQ_QUEUES);
		bar_access(w, VIRTIO_PCI_COMMON_Q_MSIX, 2, false, 0);
		bar_access(w, VIRTIO_PCI_COMMON_Q_ENABLE, 2, false, 0);
		bar_access(w, DEVICE_CONFIG + offsetof(struct virtio_net_config,
						       max_virtqueue_pairs), 2, false, 0);
		kick(d, 2 * (i % MQ_VCPUS) + 1);
		sched_yield();
	}
	return NULL;
}

/* The sidecore: passes over its port, a receive interrupt now and then. */
static void *mq_sidecore(void *arg)
{
	struct mq_driver *d = arg;
	struct sidecore *sc = &d->world->sidecore;

	for (unsigned int i = 0; !__atomic_load_n(&d->done, __ATOMIC_ACQUIRE); i++) {
		unsigned int batches;
		bool live = false;

		spin_lock(&sc->lock);
		sidecore_poll_pass(sc, &live, &batches);
		if (i % 256 == 0)
			guest_virtio_interrupt(d->world->dev->vdev,
					       VIRTIO_NET_RXQ(i / 256 % MQ_VCPUS));
		sidecore_flush_ports(sc, i);
		spin_unlock(&sc->lock);
		sched_yield();
	}
	return NULL;
}

static void test_multiqueue_control_races_sidecore(void **state)
{
	void *(*const roles[THREADS])(void *) = { mq_commander, mq_reader, mq_sidecore };
	struct mq_driver *d = test_calloc(1, sizeof(*d));
	pthread_t thread[THREADS];

	(void)state;
	assert_non_null(d);
	d->world = world_new(MQ_VCPUS, &virtio_net_ops);
	driver_start_mq(d);
	post_overlaps = 0;
	wrong_vectors = 0;
	for (unsigned int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&thread[i], NULL, roles[i], d), 0);
	for (unsigned int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(thread[i], NULL), 0);

	assert_int_equal(d->answered, CTRL_ROUNDS);
	assert_int_equal(d->refused, 0);
	assert_int_equal(to_net(d->world->dev->vdev)->active_pairs,
			 1 + (CTRL_ROUNDS - 1) % MQ_VCPUS);
	assert_false(virtio_dev_needs_reset(d->world->dev->vdev));
	assert_int_equal(d->world->dev->pci.kicks, d->kicks);
	assert_int_equal(post_overlaps, 0);
	assert_int_equal(wrong_vectors, 0);
	assert_int_equal(d->world->dev->bad_msi, 0);
	world_free(d->world);
	test_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_bar_path_races_sidecore),
		cmocka_unit_test(test_vsock_bar_path_races_sidecore),
		cmocka_unit_test(test_console_bar_path_races_kicking_vcpu),
		cmocka_unit_test(test_multiqueue_vectors_reach_their_vcpus),
		cmocka_unit_test(test_multiqueue_control_races_sidecore),
	};

	return cmocka_run_group_tests_name("virtio BAR paths against their servers", tests,
					   NULL, NULL);
}
