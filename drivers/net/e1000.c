/* SPDX-License-Identifier: MIT */
/*
 * e1000.c - the Intel 82540EM driver (e1000.h).
 *
 * References are to the "PCI/PCI-X Family of Gigabit Ethernet Controllers
 * Software Developer's Manual" (8254x SDM): §14 initialization, §3.2 receive
 * and §3.3 transmit descriptors, §13 registers.
 *
 * Descriptor rings are shared with the NIC: the driver reads a descriptor's
 * status (DD) before anything else in it, and publishes descriptors before
 * it moves the tail register. x86 keeps stores in order and loads in order,
 * so compiler barriers are all the ordering needed.
 */
#include <string.h>

#include <asm-generic/errno.h>

#include "drivers/net/e1000.h"
#include "drivers/net/e1000_regs.h"
#include "drivers/net/rar.h"
#include "drivers/net/sw_offload.h"

#define E1000_RESET_WAIT_US	10000	/* Linux's e1000 gives it 5 ms */
#define E1000_EERD_WAIT_US	1000
#define E1000_LINK_WAIT_US	2000	/* a short look; link() follows it later */

bool e1000_pci_supported(uint16_t vendor, uint16_t device)
{
	return vendor == E1000_PCI_VENDOR_INTEL && device == E1000_PCI_DEVICE_82540EM;
}

/* The driver's state, in DMA memory from nic_io.dma_alloc(). */
struct e1000_priv {
	volatile struct e1000_rx_desc *rx;
	volatile struct e1000_tx_desc *tx;
	uint64_t rx_bus, tx_bus;
	uint8_t *rx_buf, *tx_buf;	/* E1000_BUF_SIZE per descriptor */
	uint64_t rx_buf_bus, tx_buf_bus;

	uint32_t rx_next;		/* next descriptor the NIC may have filled */
	bool rx_discard;		/* inside a frame that spans descriptors */
	uint32_t tx_next;		/* next descriptor to fill */
	uint32_t tx_committed;		/* the TDT last written */
	uint32_t tx_clean;		/* oldest descriptor the NIC may still own */

	/* The checksum context the NIC holds (§3.3: it stays until replaced). */
	bool ctx_valid;
	uint8_t ctx_tucss, ctx_tucso;

	unsigned int rar_used;		/* RAR entries 1..rar_used hold guest MACs */
	bool rar_exhausted;		/* the next entry would not stick */
	bool promisc;			/* RCTL.UPE as the fallback */

	struct net_packet pkt;		/* what rx_burst() lends */
	struct sw_offload so;
};

static inline void barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static void write_rar(const struct nic *nic, unsigned int i, const uint8_t mac[ETH_ALEN])
{
	/* The entry stops matching before its address changes. */
	nic_write(nic, E1000_RAH(i), 0);
	nic_write(nic, E1000_RAL(i), rar_low(mac));
	nic_write(nic, E1000_RAH(i), rar_high(mac) | E1000_RAH_AV);
}

/* --- init ------------------------------------------------------------------- */

static int e1000_alloc(struct nic *nic)
{
	struct e1000_priv *p;
	uint64_t bus;

	p = nic->io.dma_alloc(nic->io.ctx, NIC_DMA_SHARED, sizeof(*p), 64, &bus);
	if (!p)
		return -ENOMEM;
	/* §14.4, §14.5: rings 16-byte aligned, their lengths multiples of 128 bytes. */
	p->rx = nic->io.dma_alloc(nic->io.ctx, 0, E1000_RX_RING * sizeof(struct e1000_rx_desc),
				  E1000_RING_ALIGN, &p->rx_bus);
	p->tx = nic->io.dma_alloc(nic->io.ctx, 0, E1000_TX_RING * sizeof(struct e1000_tx_desc),
				  E1000_RING_ALIGN, &p->tx_bus);
	p->rx_buf = nic->io.dma_alloc(nic->io.ctx, 0, (size_t)E1000_RX_RING * E1000_BUF_SIZE,
				      E1000_BUF_SIZE, &p->rx_buf_bus);
	p->tx_buf = nic->io.dma_alloc(nic->io.ctx, 0, (size_t)E1000_TX_RING * E1000_BUF_SIZE,
				      E1000_BUF_SIZE, &p->tx_buf_bus);
	if (!p->rx || !p->tx || !p->rx_buf || !p->tx_buf)
		return -ENOMEM;
	nic->priv = p;
	return 0;
}

/* §14.3: the Ethernet address, from RAR0 if the EEPROM load put it there. */
static int e1000_read_mac(struct nic *nic)
{
	uint32_t lo = nic_read(nic, E1000_RAL(0)), hi = nic_read(nic, E1000_RAH(0));
	uint8_t mac[ETH_ALEN];

	rar_mac(lo, hi, mac);
	/* Bochs clears RAR0 at reset: then the EEPROM is read word by word. */
	if (!(hi & E1000_RAH_AV) || !net_mac_is_usable(mac)) {
		for (uint32_t w = 0; w < 3; w++) {
			uint32_t v;

			nic_write(nic, E1000_EERD, (E1000_EEPROM_MAC_WORD + w) << E1000_EERD_ADDR_SHIFT |
				  E1000_EERD_START);
			if (!nic_wait(nic, E1000_EERD, E1000_EERD_DONE, E1000_EERD_DONE,
				      E1000_EERD_WAIT_US))
				return -ETIMEDOUT;
			v = nic_read(nic, E1000_EERD) >> E1000_EERD_DATA_SHIFT;
			mac[2 * w] = (uint8_t)v;
			mac[2 * w + 1] = (uint8_t)(v >> 8);
		}
		nic_write(nic, E1000_EERD, 0);
	}
	if (!net_mac_is_usable(mac))
		return -ENODEV;
	memcpy(nic->mac, mac, ETH_ALEN);
	return 0;
}

/* §14.4: receive ring, filters, checksum offload, then RCTL.EN. */
static void e1000_init_rx(struct nic *nic)
{
	struct e1000_priv *p = nic->priv;

	for (uint32_t i = 0; i < E1000_RX_RING; i++) {
		p->rx[i].addr = p->rx_buf_bus + (uint64_t)i * E1000_BUF_SIZE;
		p->rx[i].status = 0;
		p->rx[i].errors = 0;
		p->rx[i].length = 0;
	}
	p->rx_next = 0;
	p->rx_discard = false;
	for (uint32_t i = 0; i < E1000_MTA_ENTRIES; i++)
		nic_write(nic, E1000_MTA(i), 0);
	nic_write(nic, E1000_RDBAL, (uint32_t)p->rx_bus);
	nic_write(nic, E1000_RDBAH, (uint32_t)(p->rx_bus >> 32));
	nic_write(nic, E1000_RDLEN, E1000_RX_RING * sizeof(struct e1000_rx_desc));
	nic_write(nic, E1000_RDH, 0);
	/* One descriptor stays the driver's, so RDH == RDT always means empty. */
	nic_write(nic, E1000_RDT, E1000_RX_RING - 1);
	nic_write(nic, E1000_RXCSUM, E1000_RXCSUM_TUOFL | E1000_RXCSUM_IPOFL);
	/*
	 * Multicast is wanted by every guest (IPv6 neighbour discovery among
	 * others) and the switch floods it, so MPE takes it all in; the FCS is
	 * stripped, buffers are 2 KiB, long frames refused (no LPE).
	 */
	nic_write(nic, E1000_RCTL, E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_MPE |
		  E1000_RCTL_SECRC | E1000_RCTL_BSIZE_2048 | E1000_RCTL_RDMTS_HALF);
}

/* §14.5: transmit ring, TIPG, then TCTL.EN. */
static void e1000_init_tx(struct nic *nic)
{
	struct e1000_priv *p = nic->priv;

	for (uint32_t i = 0; i < E1000_TX_RING; i++) {
		p->tx[i].addr = 0;
		p->tx[i].lower = 0;
		p->tx[i].upper = 0;
	}
	p->tx_next = 0;
	p->tx_clean = 0;
	p->tx_committed = 0;
	p->ctx_valid = false;
	nic_write(nic, E1000_TDBAL, (uint32_t)p->tx_bus);
	nic_write(nic, E1000_TDBAH, (uint32_t)(p->tx_bus >> 32));
	nic_write(nic, E1000_TDLEN, E1000_TX_RING * sizeof(struct e1000_tx_desc));
	nic_write(nic, E1000_TDH, 0);
	nic_write(nic, E1000_TDT, 0);
	nic_write(nic, E1000_TIPG, E1000_TIPG_VALUE);
	nic_write(nic, E1000_TCTL, E1000_TCTL_EN | E1000_TCTL_PSP |
		  E1000_TCTL_CT_DEFAULT << E1000_TCTL_CT_SHIFT |
		  E1000_TCTL_COLD_FD << E1000_TCTL_COLD_SHIFT);
}

static bool e1000_link(struct nic *nic);

static int e1000_init(struct nic *nic)
{
	struct e1000_priv *p;
	uint32_t ctrl;
	int err;

	if (nic->queues != 1)
		return -EINVAL;
	if (!nic->priv) {
		err = e1000_alloc(nic);
		if (err)
			return err;
	}
	p = nic->priv;

	/* §14.3: interrupts masked, a global reset, then masked again and cleared. */
	nic_write(nic, E1000_IMC, E1000_IMC_ALL);
	nic_write(nic, E1000_CTRL, nic_read(nic, E1000_CTRL) | E1000_CTRL_RST);
	nic->io.delay_us(nic->io.ctx, 10);
	if (!nic_wait(nic, E1000_CTRL, E1000_CTRL_RST, 0, E1000_RESET_WAIT_US))
		return -ETIMEDOUT;
	nic_write(nic, E1000_IMC, E1000_IMC_ALL);
	(void)nic_read(nic, E1000_ICR);

	err = e1000_read_mac(nic);
	if (err)
		return err;

	/* §14.3: link up, speed from auto-detection, no PHY or link reset held. */
	ctrl = nic_read(nic, E1000_CTRL);
	ctrl |= E1000_CTRL_SLU | E1000_CTRL_ASDE;
	ctrl &= ~(E1000_CTRL_LRST | E1000_CTRL_PHY_RST | E1000_CTRL_ILOS | E1000_CTRL_VME |
		  E1000_CTRL_FRCSPD | E1000_CTRL_FRCDPLX);
	nic_write(nic, E1000_CTRL, ctrl);

	/* The NIC's own address in RAR0; the others empty until add_mac(). */
	write_rar(nic, 0, nic->mac);
	for (unsigned int i = 1; i < E1000_RAR_ENTRIES; i++) {
		nic_write(nic, E1000_RAH(i), 0);
		nic_write(nic, E1000_RAL(i), 0);
	}
	p->rar_used = 0;
	p->rar_exhausted = false;
	p->promisc = false;

	e1000_init_rx(nic);
	e1000_init_tx(nic);
	nic_wait(nic, E1000_STATUS, E1000_STATUS_LU, E1000_STATUS_LU, E1000_LINK_WAIT_US);
	e1000_link(nic);
	return 0;
}

/* --- link, filters -------------------------------------------------------------- */

static bool e1000_link(struct nic *nic)
{
	uint32_t status = nic_read(nic, E1000_STATUS);
	uint32_t speed = (status & E1000_STATUS_SPEED_MASK) >> E1000_STATUS_SPEED_SHIFT;

	nic->link_up = status & E1000_STATUS_LU;
	if (!nic->link_up)
		nic->speed_mbps = 0;
	else if (speed == E1000_STATUS_SPEED_10)
		nic->speed_mbps = 10;
	else if (speed == E1000_STATUS_SPEED_100)
		nic->speed_mbps = 100;
	else
		nic->speed_mbps = 1000;
	return nic->link_up;
}

static bool e1000_add_mac(struct nic *nic, const uint8_t mac[ETH_ALEN], unsigned int q)
{
	struct e1000_priv *p = nic->priv;

	if (!p || q >= nic->queues || !net_mac_is_usable(mac))
		return false;
	if (memcmp(mac, nic->mac, ETH_ALEN) == 0)
		return true;
	for (unsigned int i = 1; i <= p->rar_used; i++) {
		if (nic_read(nic, E1000_RAL(i)) == rar_low(mac) &&
		    (nic_read(nic, E1000_RAH(i)) & 0xffff) == rar_high(mac))
			return true;
	}
	if (!p->rar_exhausted && p->rar_used + 1 < E1000_RAR_ENTRIES) {
		unsigned int i = p->rar_used + 1;

		write_rar(nic, i, mac);
		/* Bochs keeps only RAR0-3: an entry that does not read back is not there. */
		if (nic_read(nic, E1000_RAH(i)) & E1000_RAH_AV) {
			p->rar_used = i;
			return true;
		}
		p->rar_exhausted = true;
	}
	/* No entry left: take every unicast frame; the switch filters by MAC. */
	if (!p->promisc) {
		nic_write(nic, E1000_RCTL, nic_read(nic, E1000_RCTL) | E1000_RCTL_UPE);
		p->promisc = true;
	}
	return true;
}

/* --- receive -------------------------------------------------------------------- */

static uint32_t rx_step(uint32_t i)
{
	return (i + 1) % E1000_RX_RING;
}

/* §3.2.3: what the NIC checked; Bochs and QEMU set IXSM and check nothing. */
static uint8_t rx_csum_flags(uint8_t status, uint8_t errors)
{
	if (status & E1000_RXD_STAT_IXSM || !(status & E1000_RXD_STAT_TCPCS) ||
	    errors & (E1000_RXD_ERR_TCPE | E1000_RXD_ERR_IPE))
		return 0;
	return VIRTIO_NET_HDR_F_DATA_VALID;
}

static unsigned int e1000_rx_burst(struct nic *nic, unsigned int q, nic_rx_fn fn, void *ctx,
				   unsigned int budget)
{
	struct e1000_priv *p = nic->priv;
	struct nic_queue_stats *st = &nic->stats[0];
	unsigned int seen = 0, delivered = 0;
	bool was_full;

	if (!p || q != 0)
		return 0;
	/* The NIC filled every descriptor it had: it may have missed frames. */
	was_full = p->rx[(p->rx_next + E1000_RX_RING - 2) % E1000_RX_RING].status &
		   E1000_RXD_STAT_DD;
	while (seen < budget) {
		volatile struct e1000_rx_desc *d = &p->rx[p->rx_next];
		uint8_t *buf = p->rx_buf + (size_t)p->rx_next * E1000_BUF_SIZE;
		uint8_t status = d->status, errors;
		uint16_t len;

		if (!(status & E1000_RXD_STAT_DD))
			break;
		barrier();
		len = d->length;
		errors = d->errors;
		if (!(status & E1000_RXD_STAT_EOP)) {
			/* A frame longer than a buffer: dropped whole, counted at its end. */
			p->rx_discard = true;
		} else if (p->rx_discard || errors & E1000_RXD_ERR_FRAME || len < ETH_HLEN ||
			   len > E1000_BUF_SIZE) {
			p->rx_discard = false;
			st->rx_drops++;
		} else {
			struct net_packet *pkt = &p->pkt;

			memset(&pkt->hdr, 0, sizeof(pkt->hdr));
			pkt->hdr.flags = rx_csum_flags(status, errors);
			pkt->len = len;
			pkt->count = 1;
			pkt->segment[0] = (struct net_segment){ buf, len };
			net_packet_snapshot(pkt);
			st->rx_packets++;
			st->rx_bytes += len;
			fn(ctx, pkt);
			delivered++;
		}
		/* The buffer address is the driver's, whatever the NIC wrote back. */
		d->addr = p->rx_buf_bus + (uint64_t)p->rx_next * E1000_BUF_SIZE;
		d->length = 0;
		d->errors = 0;
		d->status = 0;
		p->rx_next = rx_step(p->rx_next);
		seen++;
	}
	if (seen) {
		barrier();
		nic_write(nic, E1000_RDT, (p->rx_next + E1000_RX_RING - 1) % E1000_RX_RING);
		if (was_full)
			st->rx_drops += nic_read(nic, E1000_MPC);
	}
	return delivered;
}

/* --- transmit ------------------------------------------------------------------- */

static uint32_t tx_step(uint32_t i)
{
	return (i + 1) % E1000_TX_RING;
}

/* Takes back what the NIC is done with: every descriptor asks for DD (RS). */
static void tx_reclaim(struct e1000_priv *p)
{
	while (p->tx_clean != p->tx_next && p->tx[p->tx_clean].upper & E1000_TXD_STAT_DD)
		p->tx_clean = tx_step(p->tx_clean);
	barrier();
}

/* Free descriptors; one always stays empty so that TDT never reaches TDH. */
static uint32_t tx_free(const struct e1000_priv *p)
{
	return E1000_TX_RING - 1 - (p->tx_next + E1000_TX_RING - p->tx_clean) % E1000_TX_RING;
}

static void tx_put(struct e1000_priv *p, uint32_t i, uint32_t lower, uint32_t upper)
{
	volatile struct e1000_tx_desc *d = &p->tx[i];

	d->addr = p->tx_buf_bus + (uint64_t)i * E1000_BUF_SIZE;
	d->lower = lower;
	d->upper = upper;
}

/* §3.3: a TCP/IP context descriptor: where the L4 checksum goes, no TSO. */
static void tx_put_context(struct e1000_priv *p, uint32_t i, const struct sw_offload *so)
{
	volatile struct e1000_ctx_desc *c = (volatile struct e1000_ctx_desc *)&p->tx[i];

	c->ipcss = 0;
	c->ipcso = 0;
	c->ipcse = 0;
	c->tucss = (uint8_t)so->csum_start;
	c->tucso = (uint8_t)(so->csum_start + so->csum_offset);
	c->tucse = 0;		/* to the end of the frame */
	c->cmd_len = E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_CTX | E1000_TXD_CMD_RS |
		     (so->csum_offset == 16 ? E1000_TXD_TUCMD_TCP : 0);
	c->status = 0;
	c->hdr_len = 0;
	c->mss = 0;
}

static bool e1000_tx(struct nic *nic, unsigned int q, const struct net_packet *pkt)
{
	struct e1000_priv *p = nic->priv;
	struct nic_queue_stats *st = &nic->stats[0];
	struct sw_offload *so;
	uint32_t i, need, bytes = 0;
	bool hw_csum, new_ctx;

	if (!p || q != 0)
		return false;
	so = &p->so;
	tx_reclaim(p);
	if (sw_offload_begin(so, pkt) < 0 || so->max_frame > E1000_TX_FRAME_MAX) {
		st->tx_drops++;
		return false;
	}
	/* The context's offsets are bytes (§3.3); farther ones are summed here. */
	hw_csum = so->kind != SW_OFFLOAD_COPY && so->csum_start + so->csum_offset <= 0xff;
	new_ctx = hw_csum && (!p->ctx_valid || p->ctx_tucss != so->csum_start ||
			      p->ctx_tucso != so->csum_start + so->csum_offset);
	need = so->frames + new_ctx;
	if (need > E1000_TX_RING - 1) {
		st->tx_drops++;
		return false;
	}
	if (need > tx_free(p)) {
		st->ring_full++;
		return false;
	}

	/* Nothing below is the NIC's until TDT moves. */
	i = p->tx_next;
	if (new_ctx) {
		tx_put_context(p, i, so);
		i = tx_step(i);
	}
	for (uint32_t n = 0; n < so->frames; n++) {
		uint8_t *buf = p->tx_buf + (size_t)i * E1000_BUF_SIZE;
		int len = sw_offload_next(so, buf, E1000_BUF_SIZE, hw_csum ? SW_OFFLOAD_PARTIAL : 0);
		uint32_t cmd = E1000_TXD_CMD_EOP | E1000_TXD_CMD_IFCS | E1000_TXD_CMD_RS;

		if (len <= 0) {
			st->tx_drops++;
			return false;
		}
		if (hw_csum)
			tx_put(p, i, (uint32_t)len | cmd | E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_DATA,
			       E1000_TXD_POPTS_TXSM);
		else
			tx_put(p, i, (uint32_t)len | cmd, 0);
		bytes += (uint32_t)len;
		i = tx_step(i);
	}
	p->tx_next = i;
	if (new_ctx) {
		p->ctx_valid = true;
		p->ctx_tucss = (uint8_t)so->csum_start;
		p->ctx_tucso = (uint8_t)(so->csum_start + so->csum_offset);
	}
	st->tx_packets += so->frames;
	st->tx_bytes += bytes;
	return true;
}

/*
 * §3.4: the NIC sends from TDH up to TDT; one write hands it every frame
 * queued since the last.
 */
static void e1000_commit(struct nic *nic, unsigned int q)
{
	struct e1000_priv *p = nic->priv;

	if (!p || q != 0 || p->tx_committed == p->tx_next)
		return;
	barrier();
	nic_write(nic, E1000_TDT, p->tx_next);
	p->tx_committed = p->tx_next;
}

const struct nic_ops e1000_ops = {
	.name = "e1000",
	.init = e1000_init,
	.link = e1000_link,
	.rx_burst = e1000_rx_burst,
	.tx = e1000_tx,
	.commit = e1000_commit,
	.add_mac = e1000_add_mac,
};
