// Resource names from the VMs' names: the server's suffix dropped, names that
// would be the same for several VMs all given their VMID, and what clashes
// still takes a counter, the same whichever order the VMs come in.
import { resourceNames } from "../../provider/discover/names";

const names = (vms: Array<{ vmid: number; name?: string }>) => Object.fromEntries(resourceNames(vms));

test("a VM's name without -<vmid>; an unnamed VM by its VMID; characters a URN would not want become hyphens", () => {
  expect(names([{ vmid: 120, name: "web" }, { vmid: 121 }, { vmid: 122, name: "My_DB.prod" }])).toEqual({
    120: "web",
    121: "vm-121",
    122: "my-db-prod",
  });
});

test("names shared by several VMs take the VMID for all of them", () => {
  expect(
    names([
      { vmid: 121, name: "web" },
      { vmid: 120, name: "web" },
      { vmid: 130, name: "db" },
    ]),
  ).toEqual({
    120: "web-120",
    121: "web-121",
    130: "db",
  });
  // Sanitising can make two names one: Web and web.
  expect(
    names([
      { vmid: 140, name: "Web" },
      { vmid: 141, name: "web" },
    ]),
  ).toEqual({ 140: "web-140", 141: "web-141" });
});

test("a clash that remains takes a counter, and the answer does not depend on the order", () => {
  const vms = [
    { vmid: 120, name: "web" },
    { vmid: 121, name: "web" },
    { vmid: 130, name: "web-120" }, // another VM named like the first one's new name
    { vmid: 131 }, // vm-131
    { vmid: 132, name: "vm-131" },
  ];
  const expected = { 120: "web-120", 121: "web-121", 130: "web-120-130", 131: "vm-131-131", 132: "vm-131-132" };
  expect(names(vms)).toEqual(expected);
  expect(names([...vms].reverse())).toEqual(expected);
  expect(new Set(Object.values(names(vms))).size).toBe(vms.length);
});
