/* SPDX-License-Identifier: MIT */
/*
 * badvsock - a hostile virtio-vsock driver, run as root inside a guest.
 *
 * It takes the guest's virtio-vsock PCI function away from Linux
 * (virtio_user.h), sets up its receive queue (0) and transmit queue (1)
 * with VERSION_1 alone (virtio 1.2 §5.10.2), and sends the other guests
 * packets no honest driver sends, one case at a time, each on a freshly
 * reset device:
 *
 *   spoof         REQUESTs and RWs whose src_cid is another guest's, or
 *                 the host's, to the other guests' ports
 *   rst-storm     RST_STORM well-formed RSTs of its own to the other
 *                 guests, on their streams' ports
 *   deaf          DEAF_REQUESTS REQUESTs to each other guest's listening
 *                 port, with no receive buffer posted: their answers can
 *                 never be delivered
 *   oversized     a header whose len is over 64 KiB, its payload with it
 *   len-mismatch  a header whose len is not its payload's
 *   msix          each vector 0-31 in an MSI-X message at its own vCPU,
 *                 raised by CID 2's echo answering into the receive queue
 *
 * The first three are what a guest may do to others; the device drops
 * what is spoofed, delivers or drops the RSTs, and parks each answer to
 * the deaf driver 500 ms at most before resetting its connection. The last
 * two break the rogue's own device: it needs a reset (status bit 0x40).
 * Of msix's messages the hypervisor must drop and count every one. After
 * each of the first five cases it prints
 *
 *   badvsock: CASE -> status 0xSS sent N
 *
 * with the device status (§2.1) and the packets the device took. With -g
 * it first waits until CID's listener on the -l port answers a REQUEST,
 * then repeats the first three cases while it still answers (-n rounds
 * at most): the abuse lasts as long as that guest keeps the port open.
 * The breaking cases and msix run once, after the rounds; msix prints a
 * line per vector (was table entry 0 taken as the queue's vector, and
 * what answered) and one for the sweep:
 *
 *   badvsock: msix vector V entry taken|refused -> reply response|rst|none
 *   badvsock: msix swept 32 vectors, N raised
 *
 * Then a REQUEST to CID 2's echo port shows whether a reset brought the
 * device back, and a last line gives the totals:
 *
 *   badvsock: after reset -> status 0xSS reply response|rst|none
 *   badvsock: done rounds R spoofed S rsts N deaf D
 *
 * D is the REQUESTs each other guest got from the deaf case.
 *
 * usage: badvsock -c CID[,CID...] -p PORT[,PORT...] -l PORT [-g CID] [-n ROUNDS] [CASE...]
 *   -c  the other guests' CIDs        -p  the ports their streams use
 *   -l  the port they listen on       -g  the guest whose listener paces the rounds
 *   -n  most rounds (default 50)      CASE: default every case, in the order above
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/virtio_vsock.h>

#define VIRTIO_USER_TOOL "badvsock"
#include "virtio_user.h"

#define VIRTIO_VSOCK_PCI	0x1053	/* §4.1.2: 0x1040 + device ID 19 */
#define RX_QUEUE		0	/* §5.10.2: receiveq 0, transmitq 1, eventq 2 */
#define TX_QUEUE		1
#define HOST_CID		2	/* §5.10.4: the host's, here the hypervisor's */
#define ECHO_PORT		7	/* the hypervisor's echo service (docs/data-path.md) */
#define HDR_SIZE		((uint32_t)sizeof(struct virtio_vsock_hdr))	/* 44, §5.10.6 */
#define PAYLOAD_MAX		(64 * 1024)	/* what Linux sends at most, and the device takes */
#define BUF_ALLOC		(64 * 1024)	/* the credit our REQUESTs claim (§5.10.6.3) */

/* Transmit slots: a header and a small payload each, a queue's worth. */
#define TX_SLOT			128u
#define TX_SLOTS		128u
#define TX_PAGES		(TX_SLOT * TX_SLOTS / PAGE)
#define TX_BATCH		64u		/* published at once, then waited for */
#define RW_PAYLOAD		64u		/* a spoofed RW's bytes */
/* Receive buffers, when there are any: enough for the replies a case draws. */
#define RX_BUF			256u
#define RX_BUFS			16u
/* The oversized packet's payload: 64 KiB and one byte, a page a descriptor. */
#define BIG_LEN			(PAYLOAD_MAX + 1)
#define BIG_PAGES		(BIG_LEN / PAGE + 1)

#define SPOOF_PACKETS		64	/* per round */
#define RST_STORM		1024	/* per round */
/*
 * Per guest and round. Each answer to the deaf driver waits, parked, up
 * to 500 ms (VIRTIO_VSOCK_STALL_MS); and a device remembers its last 4 reset
 * connections, so the SHUTDOWN the guest's close() queues behind each
 * answer is dropped with it rather than held once more.
 */
#define DEAF_REQUESTS		2
/* How long the deaf driver stays deaf: the 500 ms stall and then some. */
#define DEAF_HOLD_US		700000
#define REPLY_STEPS		100		/* 10 ms each: 1 s for an answer */
#define REPLY_STEP_US		10000
#define GATE_STEPS		600		/* 0.5 s each: 5 min for the listener */
#define GATE_STEP_US		500000
#define ROUNDS_DEFAULT		50
#define TARGETS_MAX		8
#define PORTS_MAX		8
#define FIRST_PORT		40000		/* our ports; each connection a new one */
#define MSIX_SWEEP		32		/* vectors 0-31 */
#define MSI_ADDRESS		0xfee00000ull	/* Intel SDM Vol. 3A §11.11.1 */
#define MSI_DEST_SHIFT		12

enum reply { REPLY_NONE, REPLY_RESPONSE, REPLY_RST };

struct rogue {
	struct device dev;
	uint64_t cid;			/* our own, from the device configuration */
	struct queue rx, tx;
	uint8_t *rx_buf, *tx_buf, *big;
	uint64_t rx_buf_gpa, tx_gpa[TX_PAGES], big_gpa[BIG_PAGES];
	uint16_t tx_next;		/* the next avail index */
	uint16_t rx_seen;		/* used entries looked at */
	uint32_t next_port;
	uint32_t targets[TARGETS_MAX], ports[PORTS_MAX], listen_port;
	unsigned int n_targets, n_ports;
	unsigned long spoofed, rsts, deaf;	/* totals */
};

/* The device and its queues fresh from a reset, with rx_buffers posted (0: deaf). */
static uint8_t rogue_setup(struct rogue *r, unsigned int rx_buffers)
{
	uint8_t status;

	device_reset(&r->dev);
	queue_clear(&r->rx);
	queue_clear(&r->tx);
	r->tx_next = 0;
	r->rx_seen = 0;
	if (!device_negotiate(&r->dev))
		return status_read(&r->dev);
	queue_enable(&r->dev, RX_QUEUE, &r->rx, r->rx.desc_gpa);
	queue_enable(&r->dev, TX_QUEUE, &r->tx, r->tx.desc_gpa);
	for (unsigned int i = 0; i < rx_buffers && i < r->rx.size; i++) {
		desc_set(&r->rx, i, r->rx_buf_gpa + i * RX_BUF, RX_BUF, VRING_DESC_F_WRITE, 0);
		r->rx.avail->ring[i] = (uint16_t)i;
	}
	/* §2.6.13.2: the ring entries before the index that covers them. */
	__atomic_store_n(&r->rx.avail->idx, (uint16_t)rx_buffers, __ATOMIC_RELEASE);
	status = device_driver_ok(&r->dev);
	if (rx_buffers)
		queue_notify(&r->dev, RX_QUEUE);
	return status;
}

static struct virtio_vsock_hdr header(uint64_t src_cid, uint32_t dst_cid, uint32_t src_port,
				      uint32_t dst_port, uint16_t op)
{
	return (struct virtio_vsock_hdr){
		.src_cid = src_cid,
		.dst_cid = dst_cid,
		.src_port = src_port,
		.dst_port = dst_port,
		.type = VIRTIO_VSOCK_TYPE_STREAM,
		.op = op,
		.buf_alloc = BUF_ALLOC,
	};
}

/* Queues one packet, header and len payload bytes in one slot, unpublished. */
static void tx_add(struct rogue *r, const struct virtio_vsock_hdr *hdr, uint32_t len)
{
	unsigned int slots = r->tx.size < TX_SLOTS ? r->tx.size : TX_SLOTS;
	unsigned int i = r->tx_next % slots;
	uint8_t *slot = r->tx_buf + i * TX_SLOT;
	struct virtio_vsock_hdr h = *hdr;

	h.len = len;
	memcpy(slot, &h, HDR_SIZE);
	for (uint32_t b = 0; b < len; b++)
		slot[HDR_SIZE + b] = (uint8_t)(0xa5 ^ b);
	desc_set(&r->tx, i, r->tx_gpa[i * TX_SLOT / PAGE] + i * TX_SLOT % PAGE, HDR_SIZE + len,
		 0, 0);
	r->tx.avail->ring[r->tx_next % r->tx.size] = (uint16_t)i;
	r->tx_next++;
}

/*
 * Publishes what tx_add() queued and waits until the device has taken all
 * of it, or needs a reset, or 5 s passed. Returns the status.
 */
static uint8_t tx_flush(struct rogue *r)
{
	uint8_t status = status_read(&r->dev);

	__atomic_store_n(&r->tx.avail->idx, r->tx_next, __ATOMIC_RELEASE);
	queue_notify(&r->dev, TX_QUEUE);
	for (int i = 0; i < WAIT_STEPS * 20; i++) {
		status = status_read(&r->dev);
		if (status & VIRTIO_CONFIG_S_NEEDS_RESET ||
		    __atomic_load_n(&r->tx.used->idx, __ATOMIC_ACQUIRE) == r->tx_next)
			break;
		usleep(WAIT_STEP_US / 20);
	}
	return status;
}

static void report(const char *name, uint8_t status, unsigned long sent)
{
	printf("badvsock: %s -> status 0x%02x sent %lu\n", name, status, sent);
	fflush(stdout);
}

/*
 * Waits for a packet from cid:port to our port, in the receive buffers
 * rogue_setup() posted, and tells what it was. Anything else that lands
 * there (a late packet of an older connection) is passed over.
 */
static enum reply rx_wait(struct rogue *r, uint32_t cid, uint32_t port, uint32_t our_port)
{
	for (int step = 0; step < REPLY_STEPS; step++) {
		uint16_t used = __atomic_load_n(&r->rx.used->idx, __ATOMIC_ACQUIRE);

		for (; r->rx_seen != used; r->rx_seen++) {
			struct vring_used_elem e = r->rx.used->ring[r->rx_seen % r->rx.size];
			struct virtio_vsock_hdr h;

			if (e.id >= RX_BUFS || e.len < HDR_SIZE)
				continue;
			memcpy(&h, r->rx_buf + e.id * RX_BUF, HDR_SIZE);
			if (h.src_cid != cid || h.src_port != port || h.dst_port != our_port)
				continue;
			if (h.op == VIRTIO_VSOCK_OP_RESPONSE)
				return REPLY_RESPONSE;
			if (h.op == VIRTIO_VSOCK_OP_RST)
				return REPLY_RST;
		}
		if (status_read(&r->dev) & VIRTIO_CONFIG_S_NEEDS_RESET)
			break;
		usleep(REPLY_STEP_US);
	}
	return REPLY_NONE;
}

/*
 * Connects to cid:port as an honest driver would, on a device set up with
 * receive buffers, and closes the connection with an RST if it was taken.
 * Returns what answered the REQUEST.
 */
static enum reply request(struct rogue *r, uint32_t cid, uint32_t port)
{
	uint32_t our_port = r->next_port++;
	struct virtio_vsock_hdr h = header(r->cid, cid, our_port, port, VIRTIO_VSOCK_OP_REQUEST);
	enum reply reply;

	tx_add(r, &h, 0);
	tx_flush(r);
	reply = rx_wait(r, cid, port, our_port);
	if (reply == REPLY_RESPONSE) {
		h.op = VIRTIO_VSOCK_OP_RST;
		tx_add(r, &h, 0);
		tx_flush(r);
	}
	return reply;
}

/* request() on a freshly reset device. */
static enum reply probe(struct rogue *r, uint32_t cid, uint32_t port)
{
	rogue_setup(r, RX_BUFS);
	return request(r, cid, port);
}

/* Every port the cases aim at: the streams' and the listening one. */
static uint32_t port_at(const struct rogue *r, unsigned int i)
{
	return i % (r->n_ports + 1) < r->n_ports ? r->ports[i % (r->n_ports + 1)] : r->listen_port;
}

/*
 * Packets in another's name: each other guest gets REQUESTs and RWs whose
 * src_cid is one of the other guests' or the host's. The device must drop
 * every one and count it (spoofed); none may reach anyone.
 */
static void case_spoof(struct rogue *r)
{
	unsigned long sent = 0;
	uint8_t status = rogue_setup(r, RX_BUFS);

	for (unsigned int i = 0; i < SPOOF_PACKETS; i++) {
		uint32_t dst = r->targets[i % r->n_targets];
		/* The source: the next target after dst, or the host's CID on every other turn. */
		uint32_t src = (i / r->n_targets) % 2 ? HOST_CID
			       : r->targets[(i + 1) % r->n_targets];
		bool rw = (i / (2 * r->n_targets)) % 2;
		struct virtio_vsock_hdr h = header(src, dst, r->next_port++, port_at(r, i),
						   rw ? VIRTIO_VSOCK_OP_RW : VIRTIO_VSOCK_OP_REQUEST);

		if (src == dst)
			continue;	/* one target: only the host's name is another's */
		tx_add(r, &h, rw ? RW_PAYLOAD : 0);
		sent++;
		if (sent % TX_BATCH == 0)
			status = tx_flush(r);
	}
	status = tx_flush(r);
	r->spoofed += sent;
	report("spoof", status, sent);
}

/*
 * RSTs in our own name, a connection each, to the ports the other guests'
 * streams use. No connection of theirs is ours, so Linux drops them; the
 * device delivers each at once or drops it, never holding a sender.
 */
static void case_rst_storm(struct rogue *r)
{
	uint8_t status = rogue_setup(r, RX_BUFS);
	unsigned long sent = 0;

	for (unsigned int i = 0; i < RST_STORM; i++) {
		struct virtio_vsock_hdr h = header(r->cid, r->targets[i % r->n_targets],
						   FIRST_PORT / 2 + i, port_at(r, i / r->n_targets),
						   VIRTIO_VSOCK_OP_RST);

		tx_add(r, &h, 0);
		sent++;
		if (sent % TX_BATCH == 0)
			status = tx_flush(r);
		if (status & VIRTIO_CONFIG_S_NEEDS_RESET)
			break;
	}
	status = tx_flush(r);
	r->rsts += sent;
	report("rst-storm", status, sent);
}

/*
 * REQUESTs to the other guests' listening port from a driver that posted
 * no receive buffer. Each guest answers; its answer waits, parked, for
 * 500 ms, then the device resets that connection, and the guest's other
 * streams go on meanwhile. The device is reset only after
 * the stalls have run out, else the answers would find no driver and be
 * refused at once.
 */
static void case_deaf(struct rogue *r)
{
	uint8_t status = rogue_setup(r, 0);
	unsigned long sent = 0;

	for (unsigned int t = 0; t < r->n_targets; t++) {
		for (unsigned int i = 0; i < DEAF_REQUESTS; i++) {
			struct virtio_vsock_hdr h = header(r->cid, r->targets[t], r->next_port++,
							   r->listen_port, VIRTIO_VSOCK_OP_REQUEST);

			tx_add(r, &h, 0);
			sent++;
		}
	}
	status = tx_flush(r);
	usleep(DEAF_HOLD_US);
	status = status_read(&r->dev);
	r->deaf += DEAF_REQUESTS;
	report("deaf", status, sent);
}

/* Waits until the device says it needs a reset, or 5 s passed. */
static uint8_t wait_needs_reset(struct rogue *r)
{
	uint8_t status = status_read(&r->dev);

	for (int i = 0; i < WAIT_STEPS && !(status & VIRTIO_CONFIG_S_NEEDS_RESET); i++) {
		usleep(WAIT_STEP_US);
		status = status_read(&r->dev);
	}
	return status;
}

/*
 * A packet of 64 KiB and one byte, header and payload in 1 + BIG_PAGES
 * descriptors: the payload is all there and len says so, but it is more
 * than any packet may carry. The device must break its own transmit queue.
 */
static void case_oversized(struct rogue *r)
{
	struct virtio_vsock_hdr h = header(r->cid, r->targets[0], r->next_port++,
					   port_at(r, 0), VIRTIO_VSOCK_OP_RW);
	uint32_t left = BIG_LEN;
	uint8_t status = rogue_setup(r, RX_BUFS);

	h.len = BIG_LEN;
	memcpy(r->tx_buf, &h, HDR_SIZE);
	desc_set(&r->tx, 0, r->tx_gpa[0], HDR_SIZE, VRING_DESC_F_NEXT, 1);
	for (unsigned int i = 0; i < BIG_PAGES; i++) {
		uint32_t n = left < PAGE ? left : PAGE;

		left -= n;
		desc_set(&r->tx, 1 + i, r->big_gpa[i], n, left ? VRING_DESC_F_NEXT : 0,
			 (uint16_t)(2 + i));
	}
	r->tx.avail->ring[0] = 0;
	r->tx_next = 1;
	if (status & VIRTIO_CONFIG_S_DRIVER_OK) {
		tx_flush(r);
		status = wait_needs_reset(r);
	}
	report("oversized", status, 1);
}

/* A header saying 2 * RW_PAYLOAD bytes follow it, and RW_PAYLOAD do. */
static void case_len_mismatch(struct rogue *r)
{
	struct virtio_vsock_hdr h = header(r->cid, r->targets[0], r->next_port++,
					   port_at(r, 0), VIRTIO_VSOCK_OP_RW);
	uint8_t status = rogue_setup(r, RX_BUFS);

	tx_add(r, &h, RW_PAYLOAD);
	h.len = 2 * RW_PAYLOAD;
	memcpy(r->tx_buf, &h, HDR_SIZE);	/* slot 0: the one tx_add() just filled */
	if (status & VIRTIO_CONFIG_S_DRIVER_OK) {
		tx_flush(r);
		status = wait_needs_reset(r);
	}
	report("len-mismatch", status, 1);
}

static const char *reply_name(enum reply reply)
{
	return reply == REPLY_RESPONSE ? "response" : reply == REPLY_RST ? "rst" : "none";
}

/* Our own vCPU's local APIC ID, the first "apicid" /proc/cpuinfo lists. */
static uint32_t own_apic_id(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	unsigned int id;

	if (!f)
		die("cannot open /proc/cpuinfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "apicid : %u", &id) == 1) {
			fclose(f);
			return id;
		}
	}
	fclose(f);
	errno = 0;
	die("no apicid in /proc/cpuinfo");
	return 0;
}

/*
 * Every vector below 32, one at a time, at our own vCPU: MSI-X table entry
 * 0 holds a message otherwise valid (Intel SDM Vol. 3A §11.11: the local
 * APICs' address, fixed delivery, edge), the receive queue's vector is
 * entry 0 (virtio 1.2 §4.1.4.3), and CID 2's echo answers a REQUEST into
 * that queue, so the device raises the message. These are the host's
 * exception vectors: the hypervisor must drop every one and count it on
 * the device's counters line (bad_msi); none may reach a core's IDT.
 */
static void case_msix(struct rogue *r)
{
	uint64_t address = MSI_ADDRESS | (uint64_t)own_apic_id() << MSI_DEST_SHIFT;
	unsigned int answered = 0;

	if (!r->dev.msix_table) {
		errno = 0;
		die("no MSI-X capability");
	}
	msix_enable(&r->dev, true);
	for (uint32_t vector = 0; vector < MSIX_SWEEP; vector++) {
		uint16_t took;
		enum reply reply;

		rogue_setup(r, RX_BUFS);
		msix_entry_set(&r->dev, 0, address, vector, false);
		took = queue_vector(&r->dev, RX_QUEUE, 0);
		reply = request(r, HOST_CID, ECHO_PORT);
		answered += took == 0 && reply == REPLY_RESPONSE;
		printf("badvsock: msix vector %u entry %s -> reply %s\n", vector,
		       took == 0 ? "taken" : "refused", reply_name(reply));
		fflush(stdout);
	}
	msix_entry_set(&r->dev, 0, 0, 0, true);
	msix_enable(&r->dev, false);
	printf("badvsock: msix swept %u vectors, %u raised\n", MSIX_SWEEP, answered);
}

struct vsock_case {
	const char *name;
	void (*run)(struct rogue *r);
	bool once;		/* after the rounds: it breaks the device, or sweeps */
};

static const struct vsock_case cases[] = {
	{ "spoof", case_spoof, false },
	{ "rst-storm", case_rst_storm, false },
	{ "deaf", case_deaf, false },
	{ "oversized", case_oversized, true },
	{ "len-mismatch", case_len_mismatch, true },
	{ "msix", case_msix, true },
};

#define N_CASES	(sizeof(cases) / sizeof(cases[0]))

/* Parses "N[,N...]" into list; returns the count, 0 on anything else. */
static unsigned int parse_list(const char *text, uint32_t *list, unsigned int max)
{
	unsigned int n = 0;
	char *end;

	while (n < max) {
		unsigned long v = strtoul(text, &end, 0);

		if (end == text || v > UINT32_MAX)
			return 0;
		list[n++] = (uint32_t)v;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return 0;
		text = end + 1;
	}
	return 0;
}

static void rogue_alloc(struct rogue *r)
{
	queue_alloc(&r->rx);
	queue_alloc(&r->tx);
	r->rx_buf = pages_alloc(RX_BUF * RX_BUFS / PAGE);
	r->rx_buf_gpa = gpa_of(r->rx_buf);
	r->tx_buf = pages_alloc(TX_PAGES);
	for (unsigned int i = 0; i < TX_PAGES; i++)
		r->tx_gpa[i] = gpa_of(r->tx_buf + i * PAGE);
	r->big = pages_alloc(BIG_PAGES);
	for (unsigned int i = 0; i < BIG_PAGES; i++)
		r->big_gpa[i] = gpa_of(r->big + i * PAGE);
	r->next_port = FIRST_PORT;
}

static void usage(void)
{
	errno = 0;
	die("usage: badvsock -c CID[,CID...] -p PORT[,PORT...] -l PORT [-g CID] [-n ROUNDS] "
	    "[CASE...]");
}

int main(int argc, char **argv)
{
	static struct rogue r;
	bool wanted[N_CASES], any = false;
	unsigned long rounds = 0, rounds_max = ROUNDS_DEFAULT, gate = 0;
	enum reply reply;
	uint8_t status;
	int opt;

	while ((opt = getopt(argc, argv, "c:p:l:g:n:")) != -1) {
		if (opt == 'c')
			r.n_targets = parse_list(optarg, r.targets, TARGETS_MAX);
		else if (opt == 'p')
			r.n_ports = parse_list(optarg, r.ports, PORTS_MAX);
		else if (opt == 'l')
			r.listen_port = (uint32_t)strtoul(optarg, NULL, 0);
		else if (opt == 'g')
			gate = strtoul(optarg, NULL, 0);
		else if (opt == 'n')
			rounds_max = strtoul(optarg, NULL, 0);
		else
			usage();
	}
	if (!r.n_targets || !r.n_ports || !r.listen_port || !rounds_max)
		usage();
	for (size_t i = 0; i < N_CASES; i++) {
		wanted[i] = optind == argc;
		for (int a = optind; a < argc; a++)
			wanted[i] |= strcmp(argv[a], cases[i].name) == 0;
		any |= wanted[i];
	}
	if (!any)
		usage();

	device_open(&r.dev, VIRTIO_VSOCK_PCI);
	if (!r.dev.device_cfg) {
		errno = 0;
		die("no device configuration capability");
	}
	/* §5.10.4: guest_cid, a le64, read as two halves like any 64-bit field. */
	r.cid = mmio_read32(r.dev.device_cfg, 0) |
		(uint64_t)mmio_read32(r.dev.device_cfg, 4) << 32;
	rogue_alloc(&r);
	printf("badvsock: %s: cid %llu, rings at %#llx %#llx\n", r.dev.slot,
	       (unsigned long long)r.cid, (unsigned long long)r.rx.desc_gpa,
	       (unsigned long long)r.tx.desc_gpa);

	if (gate) {
		int tries = 1;

		while ((reply = probe(&r, (uint32_t)gate, r.listen_port)) != REPLY_RESPONSE &&
		       tries++ < GATE_STEPS)
			usleep(GATE_STEP_US);
		printf("badvsock: CID %lu port %u %s after %d tries\n", gate, r.listen_port,
		       reply == REPLY_RESPONSE ? "answers" : "never answered", tries);
		fflush(stdout);
	}
	do {
		rounds++;
		for (size_t i = 0; i < N_CASES; i++)
			if (wanted[i] && !cases[i].once)
				cases[i].run(&r);
	} while (gate && rounds < rounds_max &&
		 probe(&r, (uint32_t)gate, r.listen_port) == REPLY_RESPONSE);
	if (gate)
		printf("badvsock: CID %lu port %u closed after %lu rounds\n", gate, r.listen_port,
		       rounds);
	for (size_t i = 0; i < N_CASES; i++)
		if (wanted[i] && cases[i].once)
			cases[i].run(&r);

	/* A reset is all it takes for the device to serve the driver again. */
	reply = probe(&r, HOST_CID, ECHO_PORT);
	status = status_read(&r.dev);
	printf("badvsock: after reset -> status 0x%02x reply %s\n", status, reply_name(reply));
	printf("badvsock: done rounds %lu spoofed %lu rsts %lu deaf %lu\n", rounds, r.spoofed,
	       r.rsts, r.deaf);
	device_reset(&r.dev);
	return 0;
}
