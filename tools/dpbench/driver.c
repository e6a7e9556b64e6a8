/* SPDX-License-Identifier: MIT */
/*
 * driver.c - a guest's virtio-net or vsock driver on a host thread (driver.h). The
 * ring protocol follows virtio 1.2 §2.7.13 (supplying buffers: entries, a
 * write barrier, then idx), §2.7.10 (event index) and §2.7.14 (used
 * buffers), in the order Linux's virtio_ring keeps them.
 */
#include <string.h>

#include <linux/virtio_net.h>
#include <linux/virtio_vsock.h>

#include "tools/dpbench/driver.h"

#define RING_AREA	0x4000u		/* one queue's desc, avail and used rings */
#define USED_OFFSET	0x2000u		/* used ring on its own lines, as the device writes it */
#define EVENT_BUFS_GPA	(3 * RING_AREA)
#define EVENT_BUFS	8		/* what Linux posts on vsock's eventq */
#define BUFS_GPA	(4 * RING_AREA)
#define NET_BUF		1536		/* a mergeable buffer: header and a full frame */
#define VSOCK_BUF	(sizeof(struct virtio_vsock_hdr) + 4096)	/* Linux's, header on */
#define BUF_AREA	(2 * VIRTIO_VSOCK_QUEUE_SIZE * VSOCK_BUF)
#define RAM_SIZE	(BUFS_GPA + BUF_AREA)
#define VSOCK_BUF_ALLOC	(256 * 1024)	/* the socket buffer a stream grants */
#define VSOCK_PORT	5201

_Static_assert(DRV_QUEUE_MAX * sizeof(struct vring_desc) + sizeof(struct vring_avail) +
	       (DRV_QUEUE_MAX + 1) * sizeof(uint16_t) <= USED_OFFSET, "avail ring overlaps used");
_Static_assert(USED_OFFSET + sizeof(struct vring_used) +
	       DRV_QUEUE_MAX * sizeof(struct vring_used_elem) + sizeof(uint16_t) <= RING_AREA,
	       "used ring overruns its area");
_Static_assert(EVENT_BUFS * sizeof(struct virtio_vsock_event) <= RING_AREA,
	       "the event buffers overrun the pool");
_Static_assert(DRV_POOL_MAX * NET_BUF <= BUF_AREA, "virtio-net's pool overruns vsock's");
_Static_assert(NET_BUF >= sizeof(struct virtio_net_hdr_v1) + ETH_FRAME_LEN,
	       "a frame needs more than one buffer");
_Static_assert(VSOCK_BUF >= sizeof(struct virtio_vsock_hdr) + ETH_FRAME_LEN + 4,
	       "a packet of the largest size does not fit a buffer");
_Static_assert(DRV_POOL_MAX < DRV_NO_BUF, "a buffer's number is DRV_NO_BUF");

/* Single writer: the driver's thread; readers load it relaxed. */
static void stat_add(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

static void *gpa_ptr(const struct drv_guest *g, uint64_t gpa)
{
	return g->mem.base + gpa;
}

static void queue_init(struct drv_guest *g, struct drv_queue *q, uint64_t base, uint16_t size)
{
	q->size = size;
	q->desc_gpa = base;
	q->avail_gpa = base + size * sizeof(struct vring_desc);
	q->used_gpa = base + USED_OFFSET;
	q->desc = gpa_ptr(g, q->desc_gpa);
	q->avail = gpa_ptr(g, q->avail_gpa);
	q->used = gpa_ptr(g, q->used_gpa);
	for (unsigned int i = 0; i < size; i++) {
		q->free[i] = (uint16_t)(size - 1 - i);
		q->buf[i] = DRV_NO_BUF;
	}
	q->nfree = size;
}

static uint64_t buf_gpa(const struct drv_guest *g, uint16_t buf)
{
	return g->bufs + (uint64_t)buf * g->buf_size;
}

static uint8_t *buf_ptr(const struct drv_guest *g, uint16_t buf)
{
	return gpa_ptr(g, buf_gpa(g, buf));
}

uint64_t drv_guest_ram_size(void)
{
	return RAM_SIZE;
}

void drv_guest_init(struct drv_guest *g, enum drv_kind kind, uint8_t *ram, uint64_t ram_size,
		    const void *self, const void *peer, uint32_t len)
{
	uint16_t size = kind == DRV_NET ? DRV_QUEUE_MAX : VIRTIO_VSOCK_QUEUE_SIZE;

	g->kind = kind;
	g->mem.base = ram;
	g->mem.size = ram_size;
	queue_init(g, &g->rx, 0, size);
	queue_init(g, &g->tx, RING_AREA, size);
	queue_init(g, &g->event, 2 * RING_AREA, size);
	g->hdr_size = kind == DRV_NET ? sizeof(struct virtio_net_hdr_v1) :
					sizeof(struct virtio_vsock_hdr);
	g->buf_size = kind == DRV_NET ? NET_BUF : VSOCK_BUF;
	g->bufs = BUFS_GPA;
	/* Enough for both queues full: a refill or an echo never waits for a buffer. */
	g->pool_n = 2u * size;
	for (unsigned int i = 0; i < g->pool_n; i++)
		g->pool[i] = (uint16_t)(g->pool_n - 1 - i);
	g->napi = true;
	if (kind == DRV_NET) {
		memcpy(g->mac, self, ETH_ALEN);
		memcpy(g->peer, peer, ETH_ALEN);
	} else {
		memcpy(&g->cid, self, sizeof(g->cid));
		memcpy(&g->peer_cid, peer, sizeof(g->peer_cid));
	}
	g->frame_len = len;
}

struct virtq_layout drv_guest_layout(const struct drv_queue *q)
{
	return (struct virtq_layout){
		.size = q->size,
		.desc = q->desc_gpa,
		.avail = q->avail_gpa,
		.used = q->used_gpa,
	};
}

/* One descriptor from the free ones, for gpa; buf is the pool buffer it holds, if any. */
static uint16_t desc_take(struct drv_queue *q, uint16_t buf, uint64_t gpa, uint32_t len,
			  uint16_t flags)
{
	uint16_t id = q->free[--q->nfree];

	q->desc[id] = (struct vring_desc){ .addr = gpa, .len = len, .flags = flags };
	q->buf[id] = buf;
	q->next[id] = DRV_NO_BUF;
	return id;
}

/* Entries first; queue_publish() makes them the device's (§2.7.13). */
static void queue_post(struct drv_queue *q, uint16_t head)
{
	q->avail->ring[q->avail_idx & (q->size - 1)] = head;
	q->avail_idx++;
}

/*
 * Pool buffers, each with its length, as one chain (virtqueue_add_split());
 * the caller made sure n descriptors are free.
 */
static void queue_add(struct drv_guest *g, struct drv_queue *q, const uint16_t *bufs,
		      const uint32_t *lens, unsigned int n, bool writable)
{
	uint16_t flags = writable ? VRING_DESC_F_WRITE : 0;
	uint16_t id = desc_take(q, bufs[n - 1], buf_gpa(g, bufs[n - 1]), lens[n - 1], flags);

	for (unsigned int i = n - 1; i-- > 0;) {
		uint16_t prev = desc_take(q, bufs[i], buf_gpa(g, bufs[i]), lens[i],
					  flags | VRING_DESC_F_NEXT);

		q->desc[prev].next = id;
		q->next[prev] = id;
		id = prev;
	}
	queue_post(q, id);
}

/*
 * detach_buf_split(): the chain at head back to the free descriptors, its
 * buffers into bufs (at most max of them); the count, or 0 for a head not
 * in use, which the device should never have handed back.
 */
static unsigned int queue_detach(struct drv_queue *q, uint32_t head, uint16_t *bufs,
				 unsigned int max)
{
	unsigned int n = 0;
	uint32_t id = head;

	if (head >= q->size || q->buf[head] == DRV_NO_BUF)
		return 0;
	while (id != DRV_NO_BUF && n < max) {
		bufs[n++] = q->buf[id];
		q->buf[id] = DRV_NO_BUF;
		q->free[q->nfree++] = (uint16_t)id;
		id = q->next[id];
	}
	return n;
}

/*
 * virtqueue_kick_prepare(): idx with release after the entries, then a
 * full barrier before reading avail_event (§2.7.10), so that the device
 * either sees the new entries or the driver sees that it must notify.
 */
static void queue_publish(struct drv_queue *q)
{
	uint16_t old = q->kicked_at, event;

	if (old == q->avail_idx)
		return;
	__atomic_store_n(&q->avail->idx, q->avail_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	event = __atomic_load_n((uint16_t *)&q->used->ring[q->size], __ATOMIC_RELAXED);
	if (vring_need_event(event, q->avail_idx, old))
		stat_add(&q->notifies, 1);
	q->kicked_at = q->avail_idx;
}

/* A store only when it changes: the device polls this line. */
static void queue_set_used_event(struct drv_queue *q, uint16_t value)
{
	uint16_t *event = &q->avail->ring[q->size];

	if (*event != value)
		__atomic_store_n(event, value, __ATOMIC_RELAXED);
}

/* An interrupt's flag, looked at before the locked exchange that takes it. */
static bool take_irq(unsigned int *pending)
{
	return __atomic_load_n(pending, __ATOMIC_RELAXED) &&
	       __atomic_exchange_n(pending, 0, __ATOMIC_ACQUIRE);
}

static bool queue_more_used(const struct drv_queue *q)
{
	return __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE) != q->last_used;
}

/*
 * try_fill_recv(): an empty buffer of the pool on every free receive
 * descriptor, for the device to write the whole of.
 */
static void rx_refill(struct drv_guest *g)
{
	struct drv_queue *q = &g->rx;

	while (q->nfree && g->pool_n) {
		uint16_t buf = g->pool[--g->pool_n];

		queue_add(g, q, &buf, &g->buf_size, 1, true);
	}
}

void drv_guest_fill_rx(struct drv_guest *g)
{
	rx_refill(g);
	queue_publish(&g->rx);
	if (g->kind == DRV_VSOCK) {
		for (uint16_t i = 0; i < EVENT_BUFS; i++)
			queue_post(&g->event,
				   desc_take(&g->event, DRV_NO_BUF,
					     EVENT_BUFS_GPA + i * sizeof(struct virtio_vsock_event),
					     sizeof(struct virtio_vsock_event), VRING_DESC_F_WRITE));
		queue_publish(&g->event);
	}
}

/* A stream packet of this guest's to its peer, as a connected socket sends it. */
static void vsock_header(struct drv_guest *g, struct virtio_vsock_hdr *hdr, uint32_t len)
{
	*hdr = (struct virtio_vsock_hdr){
		.src_cid = g->cid,
		.dst_cid = g->peer_cid,
		.src_port = VSOCK_PORT + (uint32_t)g->cid,
		.dst_port = VSOCK_PORT + (uint32_t)g->peer_cid,
		.len = len,
		.type = VIRTIO_VSOCK_TYPE_STREAM,
		.op = VIRTIO_VSOCK_OP_RW,
		.buf_alloc = VSOCK_BUF_ALLOC,
		.fwd_cnt = g->fwd_cnt,
	};
}

unsigned int drv_guest_burst(struct drv_guest *g, unsigned int count)
{
	uint32_t len = g->hdr_size + g->frame_len;
	unsigned int n;

	for (n = 0; n < count && g->tx.nfree && g->pool_n; n++) {
		uint16_t buf = g->pool[--g->pool_n];
		uint8_t *data = buf_ptr(g, buf);
		struct ethhdr *eth = (struct ethhdr *)(data + g->hdr_size);

		memset(data, 0, len);
		if (g->kind == DRV_NET) {
			memcpy(eth->h_dest, g->peer, ETH_ALEN);
			memcpy(eth->h_source, g->mac, ETH_ALEN);
			eth->h_proto = __builtin_bswap16(ETH_P_IP);
		} else {
			vsock_header(g, (struct virtio_vsock_hdr *)data, g->frame_len);
		}
		queue_add(g, &g->tx, &buf, &len, 1, false);
	}
	stat_add(&g->stats.sent, n);
	queue_publish(&g->tx);
	return n;
}

/* free_old_xmit_skbs(): every completed transmit chain's buffers back to the pool. */
static void tx_reclaim(struct drv_guest *g)
{
	struct drv_queue *q = &g->tx;
	uint16_t used = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);

	if (take_irq(&g->tx_irq_pending))
		stat_add(&g->stats.tx_irqs, 1);
	for (; q->last_used != used; q->last_used++) {
		const struct vring_used_elem *e = &q->used->ring[q->last_used & (q->size - 1)];
		unsigned int n = queue_detach(q, e->id, &g->pool[g->pool_n], DRV_CHAIN_MAX);

		if (!n)
			stat_add(&g->stats.bad, 1);
		g->pool_n += n;
	}
	queue_set_used_event(q, q->last_used);
}

/*
 * The packet in buf (header, then len bytes) turned back to where it came
 * from; false when it was not what the peer sends.
 */
static bool answer(struct drv_guest *g, uint8_t *buf, uint32_t len)
{
	struct ethhdr *eth = (struct ethhdr *)(buf + g->hdr_size);
	struct virtio_vsock_hdr *hdr = (struct virtio_vsock_hdr *)buf;
	bool ok;

	if (g->kind == DRV_VSOCK) {
		ok = len == g->frame_len && hdr->src_cid == g->peer_cid &&
		     hdr->dst_cid == g->cid && hdr->op == VIRTIO_VSOCK_OP_RW && hdr->len == len;
		g->fwd_cnt += len;
		vsock_header(g, hdr, len);
		return ok;
	}
	ok = len == g->frame_len && !memcmp(eth->h_dest, g->mac, ETH_ALEN) &&
	     !memcmp(eth->h_source, g->peer, ETH_ALEN);
	memset(buf, 0, g->hdr_size);
	memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	memcpy(eth->h_source, g->mac, ETH_ALEN);
	return ok;
}

/*
 * One received packet, in as many buffers as virtio-net's num_buffers says
 * (mergeable buffers, §5.1.6.4; vsock's take one), turned round where it
 * lies and queued for transmission in those buffers, header and all, as
 * testpmd's mac forwarding sends the mbuf it received; draining, the
 * buffers go back to the pool. The receive queue is refilled from the pool
 * after the poll.
 */
static bool rx_one(struct drv_guest *g, bool echo)
{
	struct drv_queue *q = &g->rx;
	uint16_t bufs[DRV_CHAIN_MAX];
	uint32_t lens[DRV_CHAIN_MAX], total = 0;
	unsigned int buffers = 1, n = 0;
	bool ok = true;

	for (unsigned int b = 0; b < buffers; b++, q->last_used++) {
		const struct vring_used_elem *e = &q->used->ring[q->last_used & (q->size - 1)];

		/* A packet's buffers are published together: one missing is the device's fault. */
		if (b && !queue_more_used(q)) {
			ok = false;
			break;
		}
		if (n == DRV_CHAIN_MAX) {
			g->pool_n += queue_detach(q, e->id, &g->pool[g->pool_n], 1);
			ok = false;
			continue;
		}
		if (!queue_detach(q, e->id, &bufs[n], 1)) {
			ok = false;
			continue;
		}
		lens[n] = e->len;
		total += e->len;
		if (n++ == 0 && g->kind == DRV_NET) {
			const struct virtio_net_hdr_v1 *hdr = (const void *)buf_ptr(g, bufs[0]);

			buffers = hdr->num_buffers ? hdr->num_buffers : 1;
		}
	}
	/* The header, and virtio-net's Ethernet header, in the first buffer. */
	ok = ok && n && lens[0] >= g->hdr_size + (g->kind == DRV_NET ? ETH_HLEN : 0);
	if (!ok)
		stat_add(&g->stats.bad, 1);
	if (echo && ok) {
		if (!answer(g, buf_ptr(g, bufs[0]), total - g->hdr_size))
			stat_add(&g->stats.bad, 1);
		queue_add(g, &g->tx, bufs, lens, n, false);
		return true;
	}
	for (unsigned int b = 0; b < n; b++)
		g->pool[g->pool_n++] = bufs[b];
	return false;
}

/*
 * virtnet_poll(): up to a budget of frames; done early, callbacks go back
 * on (used_event = last_used) and, after a full barrier, a used entry that
 * slipped in meanwhile keeps the poll scheduled (virtqueue_poll()).
 */
static unsigned int rx_poll(struct drv_guest *g, bool echo)
{
	struct drv_queue *q = &g->rx;
	unsigned int n = 0, sent = 0;

	if (!g->napi) {
		if (!take_irq(&g->rx_irq_pending))
			return 0;
		stat_add(&g->stats.rx_irqs, 1);
		g->napi = true;
		/* virtqueue_disable_cb_split() with event index: no interrupt asked for. */
		queue_set_used_event(q, 0);
	}
	while (n < DRV_NAPI_BUDGET && (!echo || g->tx.nfree >= DRV_CHAIN_MAX) &&
	       queue_more_used(q)) {
		sent += rx_one(g, echo);
		n++;
	}
	stat_add(&g->stats.received, n);
	stat_add(&g->stats.sent, sent);
	if (n < DRV_NAPI_BUDGET) {
		queue_set_used_event(q, q->last_used);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		g->napi = queue_more_used(q);
	}
	return n;
}

unsigned int drv_guest_step(struct drv_guest *g, bool echo)
{
	unsigned int n;

	tx_reclaim(g);
	n = rx_poll(g, echo);
	/* virtnet_receive(): a refill once more than half a budget's descriptors are free. */
	if (g->rx.nfree > DRV_NAPI_BUDGET / 2)
		rx_refill(g);
	queue_publish(&g->rx);
	queue_publish(&g->tx);
	return n;
}

void drv_guest_interrupt(struct drv_guest *g, bool rx)
{
	__atomic_store_n(rx ? &g->rx_irq_pending : &g->tx_irq_pending, 1, __ATOMIC_RELEASE);
}
