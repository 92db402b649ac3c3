import { describe, expect, it } from "vitest";
import { Store } from "../../server/storage/store";

describe("pages in name order", () => {
  const seeded = () => {
    const store = new Store();
    // Written out of order: the store keeps names sorted as it goes.
    for (const name of ["d", "b", "e", "a", "c"]) {
      store.create("Proxy", {
        apiVersion: "",
        kind: "Proxy",
        metadata: { name, labels: { even: String("bd".includes(name)) } },
        spec: {},
      });
    }
    store.delete("Proxy", "e");
    return store;
  };
  const names = (items: { metadata: { name?: string } }[]) => items.map((item) => item.metadata.name);

  it("returns what follows `after`, at most `limit`, and says whether more follows and how many", () => {
    const store = seeded();
    expect(names(store.list("Proxy"))).toEqual(["a", "b", "c", "d"]);
    const first = store.page("Proxy", { limit: 2 });
    expect({ ...first, items: names(first.items) }).toEqual({ items: ["a", "b"], more: true, remaining: 2 });
    const last = store.page("Proxy", { after: "b", limit: 2 });
    expect({ ...last, items: names(last.items) }).toEqual({ items: ["c", "d"], more: false });
    expect(names(store.page("Proxy", { after: "bb" }).items)).toEqual(["c", "d"]);
  });

  it("filters without counting what remains, as Kubernetes does for selectors", () => {
    const store = seeded();
    const page = store.page("Proxy", {
      limit: 1,
      where: (object) => object.metadata.labels?.even === "true",
    });
    expect({ ...page, items: names(page.items) }).toEqual({ items: ["b"], more: true });
  });

  it("copies what it returns", () => {
    const store = seeded();
    const [first] = store.page("Proxy", { limit: 1 }).items;
    if (first) first.metadata.name = "changed";
    expect(names(store.list("Proxy"))[0]).toBe("a");
  });
});
