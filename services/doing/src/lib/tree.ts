/** An item of a tree with the items under it. */
export type TreeNode<T> = T & { children: Array<TreeNode<T>> };

/** Items with `parentId` as a tree: roots first, every level in `sort` order (ties by id, so the order is stable). */
export function buildTree<T extends { id: string; parentId: string | null; sort: number }>(rows: T[]): Array<TreeNode<T>> {
  type Node = TreeNode<T>;
  const byId = new Map<string, Node>(rows.map((r) => [r.id, { ...r, children: [] }]));
  const roots: Node[] = [];
  for (const node of byId.values()) {
    const parent = node.parentId ? byId.get(node.parentId) : undefined;
    // An item whose parent is gone (deleted, or another plan's) shows at the top rather than disappearing.
    (parent && parent !== node ? parent.children : roots).push(node);
  }
  const order = (a: Node, b: Node) => a.sort - b.sort || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const sortAll = (list: Node[]) => {
    list.sort(order);
    for (const n of list) sortAll(n.children);
  };
  sortAll(roots);
  return roots;
}
