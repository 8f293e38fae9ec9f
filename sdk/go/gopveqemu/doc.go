// Proxmox QEMU VMs as code, through a go-pve-qemu server.
package gopveqemu
