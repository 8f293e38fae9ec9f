// Replaced by the test with the program `go-pve-qemu-pulumi discover` writes.
export {};
