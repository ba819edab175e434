// IndexedDB cache of baked bodies by content hash: a body seen once loads without the network next time.
// Any IndexedDB failure (private browsing, quota) only means no cache.

const DATABASE = "pliant";
const STORE = "bakes";

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export async function readCachedBake(hash: string): Promise<Uint8Array | undefined> {
  try {
    const db = await open();
    const value = await new Promise<unknown>((resolve, reject) => {
      const request = db.transaction(STORE, "readonly").objectStore(STORE).get(hash);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    db.close();
    return value instanceof Uint8Array ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function writeCachedBake(hash: string, bytes: Uint8Array): Promise<void> {
  try {
    const db = await open();
    await new Promise<void>((resolve, reject) => {
      const transaction = db.transaction(STORE, "readwrite");
      transaction.objectStore(STORE).put(bytes, hash);
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error);
    });
    db.close();
  } catch {
    // no cache this time
  }
}
