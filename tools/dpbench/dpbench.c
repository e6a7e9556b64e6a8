/* SPDX-License-Identifier: MIT */
/*
 * dpbench.c - the sidecore's data path on the host's CPU (docs/data-path.md,
 * "On the host's CPU"): the hypervisor's own virtqueue walker, virtio-net
 * and virtio-vsock models, switch, rings and pass (sidecore_poll()), built
 * at -O2, serve two guests whose drivers run on host threads (driver.c).
 * Each guest sends packets to the other and echoes every packet it
 * receives, as DPDK's loopback test plans do.
 *
 * Scenarios: net (both guests on one sidecore), rings (each on its own
 * sidecore, every frame crossing an SPSC ring), vsock (stream packets
 * between the guests' vsock devices on one sidecore). Threads: the
 * sidecores' on core 0 (each its own core where there are cores to
 * spare), the drivers' on the next core.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "cpu/io.h"
#include "net/spsc_ring.h"
#include "sidecore/sidecore.h"
#include "tools/dpbench/driver.h"
#include "tools/dpbench/probe.h"
#include "virtio/virtio_net.h"
#include "virtio/virtio_vsock.h"
#include "virtio/vsock_domain.h"

#define GUESTS		2
#define SIDECORES	2
#define FCS_LEN		4		/* a size counts the CRC the wire would add */
#define MAX_SIZES	16
#define MAX_RUNS	101
#define DRAIN_SECONDS	1.0		/* for the last frames in flight to land */

struct bench_guest {
	union {
		struct virtio_net net;
		struct virtio_vsock vsock;
	} dev;
	struct virtio_dev *vdev;	/* the one of dev in use */
	struct drv_guest drv;
	uint8_t *ram;
};

struct world {
	struct net_switch sw;
	struct sidecore sc[SIDECORES];
	struct vsock_domain domain[SIDECORES];	/* as hv/guest/guest_vsock.c makes them */
	struct virtio_vsock_table table;
	unsigned int sidecores;
	struct spsc_ring *ring[SIDECORES];	/* ring[i]: from sidecore i to the other */
	struct bench_guest g[GUESTS];
	volatile int phase;	/* PHASE_*: the main thread's word to the others */
};

enum { PHASE_RUN, PHASE_DRAIN, PHASE_STOP };

struct scenario {
	const char *name;
	unsigned int sidecores;
	enum drv_kind kind;
};

static const struct scenario scenarios[] = {
	{ "net", 1, DRV_NET },
	{ "rings", 2, DRV_NET },
	{ "vsock", 1, DRV_VSOCK },
};

/*
 * Packets each guest sends before it echoes: a quarter of its receive
 * queue (docs/data-path.md, "On the host's CPU"). A driver leaves up to
 * 96 of virtio-net's 256 receive descriptors unposted while it polls, so
 * the two guests' 128 frames never find a receive queue without buffers;
 * vsock's device waits rather than drop, and with 64 a guest it waits on
 * the driver's refill.
 */
static unsigned int inflight(const struct drv_guest *g)
{
	return g->rx.size / 4;
}

/* One run's figures. */
struct result {
	double mpps, gbits, cycles, busy;
	uint64_t sent, received, notifies, irqs, bad, drops;
	bool ok;
};

static uint64_t host_tsc_hz;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The TSC against CLOCK_MONOTONIC over a tenth of a second. */
static uint64_t measure_tsc_hz(void)
{
	double t0 = now_s(), t1;
	uint64_t c0 = rdtsc(), c1;

	do {
		t1 = now_s();
	} while (t1 - t0 < 0.1);
	c1 = rdtsc();
	return (uint64_t)((double)(c1 - c0) / (t1 - t0));
}

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* The MSI-X message a vCPU would take: a flag its driver reads. */
static void guest_interrupt(struct virtio_dev *vdev, unsigned int source)
{
	struct bench_guest *g = vdev->ctx;

	_Static_assert(VIRTIO_NET_RX_QUEUE == VIRTIO_VSOCK_RX_QUEUE &&
		       VIRTIO_NET_TX_QUEUE == VIRTIO_VSOCK_TX_QUEUE, "queues differ");
	if (source == VIRTIO_NET_RX_QUEUE || source == VIRTIO_NET_TX_QUEUE)
		drv_guest_interrupt(&g->drv, source == VIRTIO_NET_RX_QUEUE);
}

static void mac_of(uint8_t mac[ETH_ALEN], unsigned int n)
{
	const uint8_t base[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x00 };

	memcpy(mac, base, ETH_ALEN);
	mac[5] = (uint8_t)(n + 1);
}

static void die(const char *what)
{
	fprintf(stderr, "dpbench: %s\n", what);
	exit(1);
}

/* The model behind a guest's device, initialised and added where the glue adds it. */
static void device_init(struct world *w, struct bench_guest *g, enum drv_kind kind,
			unsigned int n, unsigned int sidecore)
{
	static const char *const names[GUESTS] = { "alpha", "beta" };
	struct sidecore *sc = &w->sc[sidecore];
	struct virtio_net_params net = {
		.sidecore = sidecore,
		.sw = &w->sw,
		.tx_holdoff = sc->tx_holdoff,
	};
	struct virtio_vsock_params vsock = {
		.cid = g->drv.cid,
		.table = &w->table,
		.domain = vsock_domain_init(&w->domain[sidecore], sc),
		.stall_timeout = host_tsc_hz / 1000 * VIRTIO_VSOCK_STALL_MS,
		.tx_holdoff = sc->tx_holdoff,
		.counters_interval = host_tsc_hz / 1000 * VIRTIO_VSOCK_COUNTERS_MS,
		.request_interval = host_tsc_hz / VIRTIO_VSOCK_HOST_REQUESTS,
	};
	struct virtio_dev_params dp = {
		.name = names[n], .mem = &g->drv.mem, .interrupt = guest_interrupt, .ctx = g,
		.type = kind == DRV_NET ? (const void *)&net : (const void *)&vsock,
	};

	memcpy(net.mac, g->drv.mac, ETH_ALEN);
	if (kind == DRV_NET) {
		g->vdev = &g->dev.net.vdev;
		if (virtio_net_ops.init(g->vdev, &dp))
			die("virtio-net refused its parameters");
		g->dev.net.port.wire = false;
		net_port_storm_init(&g->dev.net.port, CONFIG_BROADCAST_FRAMES,
				    CONFIG_BROADCAST_BYTES, host_tsc_hz);
		if (!net_switch_add_port(&w->sw, &g->dev.net.port))
			die("the switch refused a port");
		return;
	}
	g->vdev = &g->dev.vsock.vdev;
	if (virtio_vsock_ops.init(g->vdev, &dp))
		die("virtio-vsock refused its parameters");
	if (!virtio_vsock_table_add(&w->table, &g->dev.vsock))
		die("the CID table refused a device");
}

/* A guest as Linux brings its device up (virtio 1.2 §3.1.1), every offered feature taken. */
static void guest_setup(struct world *w, enum drv_kind kind, unsigned int n,
			unsigned int sidecore, uint32_t len)
{
	struct bench_guest *g = &w->g[n];
	uint64_t ram_size = drv_guest_ram_size();
	uint8_t mac[ETH_ALEN], peer[ETH_ALEN];
	uint64_t cid = 3 + n, peer_cid = 3 + (n ^ 1);
	struct virtq_layout rx, tx, event;

	g->ram = aligned_alloc(4096, ram_size);
	if (!g->ram)
		die("out of memory");
	memset(g->ram, 0, ram_size);
	mac_of(mac, n);
	mac_of(peer, n ^ 1);
	drv_guest_init(&g->drv, kind, g->ram, ram_size, kind == DRV_NET ? (void *)mac : &cid,
		       kind == DRV_NET ? (void *)peer : &peer_cid, len);
	device_init(w, g, kind, n, sidecore);
	if (!virtio_dev_set_features(g->vdev, g->vdev->offered))
		die("features refused");
	rx = drv_guest_layout(&g->drv.rx);
	tx = drv_guest_layout(&g->drv.tx);
	event = drv_guest_layout(&g->drv.event);
	if (virtio_dev_enable_queue(g->vdev, VIRTIO_NET_RX_QUEUE, &rx) ||
	    virtio_dev_enable_queue(g->vdev, VIRTIO_NET_TX_QUEUE, &tx) ||
	    (kind == DRV_VSOCK &&
	     virtio_dev_enable_queue(g->vdev, VIRTIO_VSOCK_EVENT_QUEUE, &event)))
		die("a queue was refused");
	drv_guest_fill_rx(&g->drv);
	virtio_dev_start(g->vdev);
	if (!virtio_dev_active(g->vdev))
		die("the device did not start");
	if (!sidecore_attach(&w->sc[sidecore], &g->vdev->port))
		die("the sidecore refused a port");
}

static void world_setup(struct world *w, const struct scenario *scenario, uint32_t len)
{
	unsigned int sidecores = scenario->sidecores;

	memset(w, 0, sizeof(*w));
	net_switch_init(&w->sw);
	w->sidecores = sidecores;
	for (unsigned int i = 0; i < sidecores; i++) {
		w->sc[i].index = i;
		w->sc[i].sw = &w->sw;
		w->sc[i].tx_holdoff = SIDECORE_TX_HOLDOFF_US * (host_tsc_hz / 1000000);
	}
	if (sidecores == 2) {
		for (unsigned int i = 0; i < 2; i++) {
			w->ring[i] = aligned_alloc(4096, (sizeof(struct spsc_ring) + 4095) & ~4095ul);
			if (!w->ring[i])
				die("out of memory");
			spsc_ring_init(w->ring[i]);
			net_switch_add_ring(&w->sw, i, i ^ 1, w->ring[i]);
		}
	}
	for (unsigned int n = 0; n < GUESTS; n++)
		guest_setup(w, scenario->kind, n, sidecores == 2 ? n : 0, len);
}

static void world_free(struct world *w)
{
	for (unsigned int n = 0; n < GUESTS; n++)
		free(w->g[n].ram);
	for (unsigned int i = 0; i < SIDECORES; i++)
		free(w->ring[i]);
}

struct thread_arg {
	struct world *w;
	int cpu;		/* -1: not pinned */
	unsigned int first, count;	/* the sidecores or guests it runs */
};

/* Pinned, and named for perf's --comm: "sidecore" or "drivers". */
static void pin(int cpu, const char *name)
{
	cpu_set_t set;

	pthread_setname_np(pthread_self(), name);
	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		die("pthread_setaffinity_np failed");
}

/* A sidecore's loop (hv/sidecore/sidecore.c) with every port live: passes back to back. */
static void *sidecore_thread(void *p)
{
	struct thread_arg *a = p;

	pin(a->cpu, "sidecore");
	while (a->w->phase != PHASE_STOP) {
		for (unsigned int i = a->first; i < a->first + a->count; i++) {
			bool live = false;

			sidecore_poll(&a->w->sc[i], &live);
		}
		cpu_relax();
	}
	return NULL;
}

/* The guests' drivers, in turn; once draining they answer nothing more. */
static void *driver_thread(void *p)
{
	struct thread_arg *a = p;

	pin(a->cpu, "drivers");
	while (a->w->phase != PHASE_STOP) {
		bool echo = a->w->phase == PHASE_RUN;

		for (unsigned int n = a->first; n < a->first + a->count; n++)
			drv_guest_step(&a->w->g[n].drv, echo);
	}
	return NULL;
}

static uint64_t total_received(struct world *w)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < GUESTS; n++)
		sum += load(&w->g[n].drv.stats.received);
	return sum;
}

static uint64_t total_sent(struct world *w)
{
	uint64_t sum = 0;

	for (unsigned int n = 0; n < GUESTS; n++)
		sum += load(&w->g[n].drv.stats.sent);
	return sum;
}

static uint64_t total_busy(struct world *w)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < w->sidecores; i++)
		sum += load(&w->sc[i].busy_tsc);
	return sum;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Threads: a sidecore thread per sidecore and a driver thread per guest
 * when the host has a core for each; otherwise the sidecores share core 0
 * and the drivers core 1, each thread running its part in turn.
 */
static unsigned int plan_threads(struct world *w, struct thread_arg *args, bool *is_sidecore)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int t = 0;
	bool spread = cpus >= (long)(w->sidecores + GUESTS);

	if (spread) {
		for (unsigned int i = 0; i < w->sidecores; i++, t++) {
			args[t] = (struct thread_arg){ w, (int)t, i, 1 };
			is_sidecore[t] = true;
		}
		for (unsigned int n = 0; n < GUESTS; n++, t++) {
			args[t] = (struct thread_arg){ w, (int)t, n, 1 };
			is_sidecore[t] = false;
		}
		return t;
	}
	args[0] = (struct thread_arg){ w, 0, 0, w->sidecores };
	is_sidecore[0] = true;
	args[1] = (struct thread_arg){ w, cpus > 1 ? 1 : -1, 0, GUESTS };
	is_sidecore[1] = false;
	return 2;
}

/*
 * The devices' view agrees with the drivers': what each sent the other
 * received, once; drops counted into *drops.
 */
static bool devices_agree(struct world *w, enum drv_kind kind, uint64_t *drops)
{
	bool agree = true;

	for (unsigned int n = 0; n < GUESTS; n++) {
		const struct bench_guest *g = &w->g[n], *peer = &w->g[n ^ 1];

		if (kind == DRV_NET) {
			const struct net_port_stats *s = &g->dev.net.port.stats;

			*drops += s->tx_drops + s->rx_drops + g->dev.net.stats.rx_no_buffers;
			agree = agree && s->tx_packets == peer->dev.net.port.stats.rx_packets &&
				s->rx_packets == g->drv.stats.received;
		} else {
			const struct virtio_vsock_stats *s = &g->dev.vsock.stats;

			*drops += s->dropped + s->rsts + s->resets + s->spoofed;
			agree = agree && s->packets == peer->drv.stats.received;
		}
	}
	return agree;
}

static struct result run_once(const struct scenario *sc, unsigned int size, double seconds)
{
	struct world *w = malloc(sizeof(*w));
	struct thread_arg args[SIDECORES + GUESTS];
	bool is_sidecore[SIDECORES + GUESTS];
	pthread_t tid[SIDECORES + GUESTS];
	unsigned int threads;
	struct result r = { 0 };
	uint64_t rx0, rx1, busy0, busy1, tsc0, tsc1;
	double warm = seconds < 1.0 ? seconds / 4 : 0.25, deadline;

	if (!w)
		die("out of memory");
	world_setup(w, sc, sc->kind == DRV_NET ? size - FCS_LEN : size);
	for (unsigned int n = 0; n < GUESTS; n++)
		drv_guest_burst(&w->g[n].drv, inflight(&w->g[n].drv));
	w->phase = PHASE_RUN;
	threads = plan_threads(w, args, is_sidecore);
	for (unsigned int t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, is_sidecore[t] ? sidecore_thread : driver_thread,
				   &args[t]))
			die("pthread_create failed");
	sleep_s(warm);
	rx0 = total_received(w);
	busy0 = total_busy(w);
	tsc0 = rdtsc();
	sleep_s(seconds);
	rx1 = total_received(w);
	busy1 = total_busy(w);
	tsc1 = rdtsc();
	/* No more answers: what is in flight lands, and then sent must equal received. */
	w->phase = PHASE_DRAIN;
	deadline = now_s() + DRAIN_SECONDS;
	while (total_sent(w) != total_received(w) && now_s() < deadline)
		sleep_s(0.001);
	w->phase = PHASE_STOP;
	for (unsigned int t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);

	double elapsed = (double)(tsc1 - tsc0) / (double)host_tsc_hz;
	uint64_t frames = rx1 - rx0;

	r.mpps = (double)frames / elapsed / 1e6;
	r.gbits = r.mpps * size * 8 / 1e3;
	r.cycles = frames ? (double)(busy1 - busy0) / (double)frames : 0;
	r.busy = (double)(busy1 - busy0) / (double)(tsc1 - tsc0) / w->sidecores;
	r.sent = total_sent(w);
	r.received = total_received(w);
	for (unsigned int n = 0; n < GUESTS; n++) {
		const struct drv_guest *d = &w->g[n].drv;

		r.notifies += d->rx.notifies + d->tx.notifies;
		r.irqs += d->stats.rx_irqs + d->stats.tx_irqs;
		r.bad += d->stats.bad;
	}
	for (unsigned int i = 0; i < w->sidecores; i++)
		if (w->ring[i])
			r.drops += w->ring[i]->full_drops;
	r.ok = r.sent == r.received && r.received > GUESTS * inflight(&w->g[0].drv) && !r.bad &&
	       devices_agree(w, sc->kind, &r.drops) && !r.drops;
	world_free(w);
	free(w);
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The run of median rate stands for all; it keeps its own cycles and busy share. */
static struct result median(struct result *runs, unsigned int n)
{
	double rates[MAX_RUNS];
	struct result pick = runs[0];

	for (unsigned int i = 0; i < n; i++)
		rates[i] = runs[i].mpps;
	qsort(rates, n, sizeof(rates[0]), cmp_double);
	for (unsigned int i = 0; i < n; i++)
		if (runs[i].mpps == rates[n / 2])
			pick = runs[i];
	for (unsigned int i = 0; i < n; i++)
		pick.ok = pick.ok && runs[i].ok;
	return pick;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dpbench [--scenario net|rings|vsock|all] [--sizes 64,128,...] [--seconds S]\n"
		"               [--runs N] [--csv] [--check]\n"
		"       dpbench --probe [--csv]\n");
	exit(2);
}

static unsigned int parse_sizes(const char *arg, unsigned int *sizes)
{
	unsigned int n = 0;
	char *copy = strdup(arg), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v = strtol(tok, NULL, 10);

		if (n == MAX_SIZES || v < ETH_ZLEN + FCS_LEN || v > ETH_FRAME_LEN + FCS_LEN)
			usage();
		sizes[n++] = (unsigned int)v;
	}
	free(copy);
	return n;
}

/* The cores' distance, as the bench's threads will see it (probe.h). */
static int print_probe(bool csv)
{
	double ticks = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? probe_round_trip(0, 1) : 0;
	double ns = ticks * 1e9 / (double)host_tsc_hz;

	if (!ticks) {
		fprintf(stderr, "dpbench: the probe needs two cores\n");
		return 1;
	}
	if (csv)
		printf("probe,%.1f,%.1f\n", ticks, ns);
	else
		printf("probe  a cache line from core 0 to core 1 and back: %.1f cycles, %.1f ns\n",
		       ticks, ns);
	return 0;
}

/* As the hypervisor asks at boot (hv/init/main.c). */
static bool host_has_prefetchw(void)
{
	unsigned int eax, ebx, ecx, edx;

	return __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 8));
}

int main(int argc, char **argv)
{
	unsigned int sizes[MAX_SIZES] = { 64, 128, 256, 512, 1024, 1518 }, nsizes = 6;
	unsigned int runs = 5;
	double seconds = 2.0;
	const char *which = "all";
	bool csv = false, check = false, probe = false, all_ok = true;
	struct result results[MAX_RUNS];

	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "--csv")) {
			csv = true;
		} else if (!strcmp(opt, "--check")) {
			check = true;
		} else if (!strcmp(opt, "--probe")) {
			probe = true;
		} else if (!val) {
			usage();
		} else if (!strcmp(opt, "--scenario")) {
			which = val, i++;
		} else if (!strcmp(opt, "--sizes")) {
			nsizes = parse_sizes(val, sizes), i++;
		} else if (!strcmp(opt, "--seconds")) {
			seconds = strtod(val, NULL), i++;
		} else if (!strcmp(opt, "--runs")) {
			runs = (unsigned int)strtoul(val, NULL, 10), i++;
		} else {
			usage();
		}
	}
	if (!nsizes || !runs || runs > MAX_RUNS || !(seconds > 0))
		usage();
	host_tsc_hz = measure_tsc_hz();
	if (probe)
		return print_probe(csv);
	virtq_use_prefetchw(host_has_prefetchw());
	for (unsigned int s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];

		if (strcmp(which, "all") && strcmp(which, sc->name))
			continue;
		for (unsigned int z = 0; z < nsizes; z++) {
			struct result r;

			for (unsigned int i = 0; i < runs; i++)
				results[i] = run_once(sc, sizes[z], seconds);
			r = median(results, runs);
			all_ok = all_ok && r.ok;
			if (csv)
				printf("%s,%u,%.3f,%.3f,%.1f,%.3f,%lu,%lu,%lu,%lu,%s\n", sc->name,
				       sizes[z], r.mpps, r.gbits, r.cycles, r.busy, r.sent, r.received,
				       r.notifies, r.irqs, r.ok ? "ok" : "mismatch");
			else
				printf("%-6s size %4u  %7.3f Mpps  %7.3f Gbit/s  %7.1f cycles/packet  busy %3.0f%%  sent %lu received %lu doorbells %lu interrupts %lu  %s\n",
				       sc->name, sizes[z], r.mpps, r.gbits, r.cycles, r.busy * 100,
				       r.sent, r.received, r.notifies, r.irqs,
				       r.ok ? "counters agree" : "COUNTERS DISAGREE");
			fflush(stdout);
		}
	}
	return check && !all_ok ? 1 : 0;
}
