/* SPDX-License-Identifier: MIT */
/*
 * guest_device.c - a guest's device registry and the one path its devices'
 * interrupt messages take to its vCPUs.
 */
#include "arch/console.h"
#include "guest/guest.h"
#include "guest/guest_device.h"
#include "guest/vcpu.h"
#include "vdev/msi.h"

bool guest_device_add(struct guest *g, struct guest_device *dev)
{
	unsigned int slot = 1;	/* slot 0 is the host bridge */

	if (g->device_count == GUEST_MAX_DEVICES) {
		printk("guest %s: no room for %s: at most %u devices\n", g->name, dev->name,
		       GUEST_MAX_DEVICES);
		return false;
	}
	if (dev->pci) {
		while (slot < VPCI_SLOTS && !vpci_bus_add(&g->pci, slot, dev->pci))
			slot++;
		if (slot == VPCI_SLOTS) {
			printk("guest %s: no PCI slot left for %s\n", g->name, dev->name);
			return false;
		}
		dev->slot = slot;
	}
	g->device[g->device_count++] = dev;
	return true;
}

void guest_device_remove_all(struct guest *g)
{
	while (g->device_count) {
		struct guest_device *dev = g->device[--g->device_count];

		g->device[g->device_count] = NULL;
		if (dev->pci)
			vpci_bus_remove(&g->pci, dev->slot);
		if (dev->ops->release)
			dev->ops->release(dev);
	}
}

bool guest_device_mmio(struct guest *g, uint64_t gpa, unsigned int size, bool write,
		       uint64_t *value, bool *notify)
{
	*notify = false;
	for (unsigned int i = 0; i < g->device_count; i++) {
		struct guest_device *dev = g->device[i];

		if (dev->ops->mmio && dev->ops->mmio(dev, gpa, size, write, value, notify))
			return true;
	}
	return false;
}

void guest_device_reset_all(struct guest *g)
{
	for (unsigned int i = 0; i < g->device_count; i++)
		if (g->device[i]->ops->reset)
			g->device[i]->ops->reset(g->device[i]);
}

/*
 * Whether v is a destination of msg: its APIC ID in physical mode (0xff is
 * every one). The guest runs its x2APIC in physical mode (docs/vmx.md,
 * "Direct interrupts"): a logical destination names no vCPU.
 */
static bool guest_msi_target(const struct vcpu *v, const struct msi_message *msg)
{
	return !msg->logical && (msg->dest == MSI_DEST_BROADCAST || v->apic_id == msg->dest);
}

const char *guest_msi_send(struct guest *g, struct guest_msi_memo *memo, uint64_t address,
			   uint32_t data)
{
	struct msi_message msg;
	const char *invalid;
	struct vcpu *last = NULL;
	unsigned int sent = 0;

	if (memo && memo->vcpu && memo->address == address && memo->data == data) {
		vcpu_send_interrupt(memo->vcpu, memo->vector);
		return NULL;
	}
	invalid = msi_decode(address, data, &msg);
	for (unsigned int i = 0; !invalid && i < g->vcpu_count; i++) {
		if (!guest_msi_target(&g->vcpu[i], &msg))
			continue;
		vcpu_send_interrupt(&g->vcpu[i], msg.vector);
		last = &g->vcpu[i];
		sent++;
		if (msg.lowest_priority || msg.redirection_hint)
			break;
	}
	/* A vCPU's APIC ID is fixed for the guest's lifetime: the answer stays true. */
	if (memo && sent == 1)
		*memo = (struct guest_msi_memo){ address, data, msg.vector, last };
	return invalid ? invalid : sent ? NULL : "names no vCPU";
}
