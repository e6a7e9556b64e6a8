/* SPDX-License-Identifier: MIT */
/*
 * guest_net.c - wires a guest's virtio-net device model to its virtio-pci
 * function, its sidecore and its vCPUs.
 *
 * Locking. The sidecore's lock guards the whole device, struct virtio_pci
 * and struct virtio_net alike (virtio_pci.c takes no lock of its own):
 *   - BAR accesses from any vCPU: guest_net_mmio() takes it around decode
 *     and access, so the BAR cannot move in between;
 *   - configuration accesses (CF8/CFC, ECAM) from any vCPU: the exit
 *     handler takes it through guest_pci_lock() before the bus call, which
 *     then takes the bus lock (vdev/pci.h) and runs the function's written
 *     hook inside both;
 *   - the sidecore's poll pass, which raises interrupts through
 *     guest_net_interrupt() and guest_net_flush();
 *   - a restart's device reset (guest_net_reset()).
 * Order: sidecore lock, then the bus lock, then the console's lock (printk
 * and the MSI path may run under both). Nothing here takes the sidecore's
 * lock while holding the bus lock or a UART's.
 */
#include <stddef.h>
#include <string.h>

#include <linux/virtio_pci.h>

#include "arch/console.h"
#include "arch/spinlock.h"
#include "config/guest_layout.h"
#include "vdev/msi.h"
#include "vm/guest_log.h"
#include "vm/guest_net.h"
#include "vm/vm.h"

#define GUEST_NET_QUEUE_SIZE	256

/*
 * Whether v is a destination of msg: its APIC ID in physical mode (0xff is
 * every one), a bit of its LDR in the flat logical model (SDM Vol. 3A
 * §11.6.2.2, the only one the guest's xAPIC offers).
 */
static bool guest_net_msi_target(const struct vcpu *v, const struct msi_message *msg)
{
	uint32_t ldr = v->lapic.page[APIC_LDR / 4] >> 24;

	if (msg->logical)
		return (ldr & msg->dest) != 0;
	return msg->dest == MSI_DEST_BROADCAST || v->apic_id == msg->dest;
}

/*
 * Sends a message the guest programmed: fixed delivery to every destination,
 * lowest priority (or a redirection hint) to the first one. A message that is
 * not an interrupt or reaches no vCPU is dropped and reported once.
 */
static void guest_net_send_msi(void *ctx, uint64_t address, uint32_t data)
{
	struct guest_net *gn = ctx;
	struct guest *g = gn->guest;
	struct msi_message msg;
	const char *invalid = msi_decode(address, data, &msg);
	unsigned int sent = 0;

	for (unsigned int i = 0; !invalid && i < g->vcpu_count; i++) {
		if (!guest_net_msi_target(&g->vcpu[i], &msg))
			continue;
		vcpu_post_interrupt(&g->vcpu[i], msg.vector);
		sent++;
		if (msg.lowest_priority || msg.redirection_hint)
			break;
	}
	if (!sent && !gn->bad_msi++)
		guest_log(g, "virtio-net: MSI address %#lx data %#x: %s, dropped\n",
			  address, data, invalid ? invalid : "names no vCPU");
}

static void guest_net_interrupt(struct virtio_net *dev, unsigned int source)
{
	struct guest_net *gn = dev->ctx;

	if (source == VIRTIO_NET_CONFIG_CHANGE)
		virtio_pci_config_interrupt(&gn->pci);
	else
		virtio_pci_interrupt(&gn->pci, source);
}

static uint32_t guest_net_config_read(void *ctx, unsigned int offset, unsigned int size)
{
	struct guest_net *gn = ctx;

	return virtio_net_read_config(&gn->net, offset, size);
}

static bool guest_net_queue_enable(void *ctx, unsigned int queue, uint16_t size,
				   uint64_t desc, uint64_t driver, uint64_t device)
{
	struct guest_net *gn = ctx;
	struct virtq_layout layout = { .size = size, .desc = desc, .avail = driver,
				       .used = device };

	/* The rings' format depends on what was negotiated (event index, indirect). */
	if (!virtio_net_set_features(&gn->net, virtio_pci_driver_features(&gn->pci)))
		return false;
	return virtio_net_enable_queue(&gn->net, queue, &layout) == 0;
}

static void guest_net_driver_ok(void *ctx, uint64_t features)
{
	struct guest_net *gn = ctx;

	virtio_net_set_features(&gn->net, features);
	virtio_net_start(&gn->net);
	gn->needs_reset_reported = false;
	gn->sidecore.wake(gn->sidecore.ctx);
}

static void guest_net_device_reset(void *ctx)
{
	struct guest_net *gn = ctx;

	virtio_net_reset(&gn->net);
	gn->needs_reset_reported = false;
}

/* .features is filled in from the device model on first use. */
static struct virtio_pci_device_ops guest_net_ops = {
	.device_id = VIRTIO_ID_NET,
	.num_queues = VIRTIO_NET_QUEUES,
	.queue_size_max = GUEST_NET_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_net_config),
	.config_read = guest_net_config_read,
	.queue_enable = guest_net_queue_enable,
	.driver_ok = guest_net_driver_ok,
	.reset = guest_net_device_reset,
};

bool guest_net_create(struct guest_net *gn, struct guest *g,
		      const struct guest_net_sidecore *sidecore, const uint8_t mac[6])
{
	struct virtio_net_params params = {
		.name = g->name,
		.sidecore = sidecore->index,
		.mem = &gn->mem,
		.sw = sidecore->sw,
		.interrupt = guest_net_interrupt,
		.ctx = gn,
		.tx_holdoff = sidecore->tx_holdoff,
	};

	memset(gn, 0, sizeof(*gn));
	gn->guest = g;
	gn->sidecore = *sidecore;
	gn->mem.base = (uint8_t *)(uintptr_t)g->ram_hpa;
	gn->mem.size = g->ram_size;
	memcpy(params.mac, mac, sizeof(params.mac));

	guest_net_ops.features = virtio_net_device_features();
	if (!virtio_net_init(&gn->net, &params) ||
	    !virtio_pci_init(&gn->pci, g->name, &guest_net_ops, gn, guest_net_send_msi, gn,
			     GUEST_PCI_MMIO_GPA + GUEST_NET_PCI_SLOT * VIRTIO_PCI_BAR_SIZE) ||
	    !pci_bus_add(&g->pci, GUEST_NET_PCI_SLOT, &gn->pci.pci) ||
	    !net_switch_add_port(sidecore->sw, &gn->net.port)) {
		printk("guest %s: cannot create its virtio-net device\n", g->name);
		return false;
	}
	return true;
}

void guest_net_reset(struct guest_net *gn)
{
	spin_lock(gn->sidecore.lock);
	virtio_pci_bar_write(&gn->pci, offsetof(struct virtio_pci_common_cfg, device_status), 1, 0);
	spin_unlock(gn->sidecore.lock);
}

bool guest_net_active(const struct guest_net *gn)
{
	return gn->net.running && !virtio_net_needs_reset(&gn->net);
}

unsigned int guest_net_poll(struct guest_net *gn, unsigned int budget)
{
	return virtio_net_poll_tx(&gn->net, budget);
}

void guest_net_flush(struct guest_net *gn, uint64_t now)
{
	virtio_net_flush(&gn->net, now);
	if (virtio_net_needs_reset(&gn->net) && !gn->needs_reset_reported) {
		gn->needs_reset_reported = true;
		guest_log(gn->guest, "virtio-net: device needs reset\n");
		virtio_pci_mark_needs_reset(&gn->pci);
	}
}

bool guest_net_mmio(struct guest_net *gn, uint64_t gpa, unsigned int size, bool write,
		    uint64_t *value, bool *notify)
{
	uint64_t offset;
	bool claimed;

	*notify = false;
	/* Decode and access under one hold: a config write may move the BAR. */
	spin_lock(gn->sidecore.lock);
	claimed = virtio_pci_bar_decode(&gn->pci, gpa, size, &offset);
	if (claimed && write)
		*notify = virtio_pci_bar_write(&gn->pci, offset, size, *value) !=
			  VIRTIO_PCI_NO_NOTIFY;
	else if (claimed)
		*value = virtio_pci_bar_read(&gn->pci, offset, size);
	spin_unlock(gn->sidecore.lock);
	return claimed;
}
