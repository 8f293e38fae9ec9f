// The list reports memory and disk in whole GiB, truncated (bytes / 1024^3):
// 2048 MB reads back as 2, 3000 MB also as 2, 512 MB as 0. A known exact value
// that reads back as the listed number is kept; only a listed number that
// cannot come from it is drift, and then the listed value is all we know.

/** Memory in MB: the known value when floor(known/1024) equals the listed GiB, else listed*1024. */
export function memoryFromList(listedGiB: number, knownMb: number | undefined): number {
  if (knownMb !== undefined && Math.floor(knownMb / 1024) === listedGiB) return knownMb;
  return listedGiB * 1024;
}

/** Disk in GiB: the known value when it truncates to the listed GiB, else the listed value. */
export function diskFromList(listedGiB: number, knownGb: number | undefined): number {
  if (knownGb !== undefined && Math.floor(knownGb) === listedGiB) return knownGb;
  return listedGiB;
}
