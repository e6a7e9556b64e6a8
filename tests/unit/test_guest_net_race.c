/* SPDX-License-Identifier: MIT */
/*
 * test_guest_net_race.c - the virtio-net function's BAR and config paths
 * (through the guest's device registry and its PCI bus) entered from two
 * vCPUs while the sidecore raises interrupts, each taking the locks
 * production takes. The function's state is one core's at a time: MSI-X
 * messages leave one at a time, and nothing strays outside the function.
 * A guest of four vCPUs gets a queue pair each: every queue's message
 * reaches the vCPU its vector names, and control commands a vCPU waits for
 * are answered by the sidecore's pass while vCPUs rewrite vectors and kick.
 *
 * guest_net.c, guest_virtio.c and guest_device.c are glue, not pure
 * modules: they are compiled in here, with stand-ins for the console, the
 * sidecore's wake-up and the vCPUs they call.
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
#include "tests/unit/support/vring_driver.h"

#define SLOT		1	/* the first free slot after the host bridge */
#define BAR0		(GUEST_PCI_MMIO_GPA + SLOT * VIRTIO_PCI_BAR_SIZE)
#define BAR_MSIX_TABLE	0x3000	/* where virtio_pci.c puts the table */
#define GUEST_RAM	(1u << 20)
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

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The races here are not about the bucket: every line goes out. */
void guest_log_gate_init(struct log_gate *gate, struct guest *g)
{
	gate->allow = NULL;
	gate->ctx = g;
}

void guest_log(struct guest *g, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%s] ", g->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* The sidecore's wake-up call: no core idles in HLT here. */
/* The 1 MHz TSC the sidecore's tx_holdoff is counted in. */
uint64_t tsc_hz(void)
{
	return 1000000;
}

void sidecore_wake(struct sidecore *sc)
{
	(void)sc;
}

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
	struct guest_net net;
	struct sidecore sidecore;
	pthread_barrier_t round;
};

static uint64_t bar_access(struct world *w, uint64_t offset, unsigned int size, bool write,
			   uint64_t value)
{
	bool notify;

	assert_true(guest_device_mmio(&w->guest, BAR0 + offset, size, write, &value, &notify));
	return value;
}

/* A config access as a vCPU makes it: the bus takes its lock, then the function's. */
static void config_write(struct world *w, unsigned int reg, unsigned int size, uint32_t value)
{
	pci_ecam_write(&w->guest.pci, (uint64_t)SLOT << 15 | reg, size, value);
}

static uint32_t config_read(struct world *w, unsigned int reg, unsigned int size)
{
	return pci_ecam_read(&w->guest.pci, (uint64_t)SLOT << 15 | reg, size);
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

/* The sidecore: a config change to report, under its lock as in its poll pass. */
static void sidecore_signal(struct world *w)
{
	spin_lock(&w->sidecore.lock);
	guest_net_interrupt(&w->net.net, VIRTIO_NET_CONFIG_CHANGE);
	sidecore_flush_ports(&w->sidecore, 0);
	spin_unlock(&w->sidecore.lock);
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

/* A guest of vcpus vCPUs (APIC IDs 0, 1, ...) with its NIC on a sidecore of its own. */
static struct world *world_new(unsigned int vcpus)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 1 };
	static const uint32_t no_storm_limit[2] = { 0, 0 };
	struct world *w = aligned_alloc(_Alignof(struct world), sizeof(struct world));
	void *ram = test_calloc(1, GUEST_RAM);
	struct guest *g;

	assert_non_null(w);
	assert_non_null(ram);
	memset(w, 0, sizeof(*w));
	g = &w->guest;
	net_switch_init(&test_switch);
	strcpy(g->name, "race");
	g->ram_hpa = (uintptr_t)ram;
	g->ram_size = GUEST_RAM;
	g->vcpu_count = vcpus;
	for (unsigned int i = 0; i < vcpus; i++)
		g->vcpu[i] = (struct vcpu){ .guest = g, .index = i, .apic_id = i };
	pci_bus_init(&g->pci);
	w->sidecore.sw = &test_switch;
	w->sidecore.tx_holdoff = 1000;	/* 1 ms, the sidecore's, on a 1 MHz TSC */
	assert_true(guest_net_register(&w->net, g, &w->sidecore));
	assert_true(guest_net_init(&w->net, g, &w->sidecore, mac, false, no_storm_limit));
	assert_int_equal(w->net.dev.slot, SLOT);
	assert_int_equal(w->sidecore.port_count, 1);
	return w;
}

static void world_free(struct world *w)
{
	test_free((void *)(uintptr_t)w->guest.ram_hpa);
	free(w);
}

static void test_bar_path_races_sidecore(void **state)
{
	const struct worker roles[THREADS] = {
		{ .first = vector_mask, .second = vector_unmask },
		{ .first = sidecore_signal, .second = sidecore_burst },
		{ .second = reader_round },
	};
	struct worker worker[THREADS];
	pthread_t thread[THREADS];
	struct world *w = world_new(1);

	(void)state;
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
	assert_int_equal(w->net.bad_msi, 0);
	/* Each change was sent, or waits in the PBA for the vector's unmasking. */
	assert_true(posts >= ROUNDS && posts <= ROUNDS * (BURST + 1));
	world_free(w);
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
	d->world = world_new(MQ_VCPUS);
	driver_start_mq(d);
	memset(per_vcpu, 0, sizeof(per_vcpu));
	wrong_vectors = 0;
	for (unsigned int q = 0; q < 2 * MQ_VCPUS; q++) {
		spin_lock(&d->world->sidecore.lock);
		guest_net_interrupt(&d->world->net.net, q);
		spin_unlock(&d->world->sidecore.lock);
	}
	for (unsigned int v = 0; v < MQ_VCPUS; v++)
		assert_int_equal(per_vcpu[v], 2);
	assert_int_equal(wrong_vectors, 0);
	assert_int_equal(d->world->net.bad_msi, 0);
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
			guest_net_interrupt(&d->world->net.net, VIRTIO_NET_RXQ(i / 256 % MQ_VCPUS));
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
	d->world = world_new(MQ_VCPUS);
	driver_start_mq(d);
	post_overlaps = 0;
	wrong_vectors = 0;
	for (unsigned int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&thread[i], NULL, roles[i], d), 0);
	for (unsigned int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(thread[i], NULL), 0);

	assert_int_equal(d->answered, CTRL_ROUNDS);
	assert_int_equal(d->refused, 0);
	assert_int_equal(d->world->net.net.active_pairs, 1 + (CTRL_ROUNDS - 1) % MQ_VCPUS);
	assert_false(virtio_net_needs_reset(&d->world->net.net));
	assert_int_equal(d->world->net.pci.kicks, d->kicks);
	assert_int_equal(post_overlaps, 0);
	assert_int_equal(wrong_vectors, 0);
	assert_int_equal(d->world->net.bad_msi, 0);
	world_free(d->world);
	test_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar_path_races_sidecore),
		cmocka_unit_test(test_multiqueue_vectors_reach_their_vcpus),
		cmocka_unit_test(test_multiqueue_control_races_sidecore),
	};

	return cmocka_run_group_tests_name("virtio-net BAR path against its sidecore", tests,
					   NULL, NULL);
}
