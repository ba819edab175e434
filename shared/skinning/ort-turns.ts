// onnxruntime-web takes one request at a time from a thread's runtime: with the WebGPU provider a session created
// while another is being created fails ("another WebGPU EP inference session is being created.", and the one after
// read memory out of bounds), and a session refuses a run while another is in flight. A page whose characters open
// their networks together, or a tool opening one while the fox's runs, meets that; so everything a page asks of one
// runtime (opening, running, releasing sessions) waits its turn. onnxruntime-node needs none of this (the server's
// characters run side by side). A run that never settles holds up the runs behind it: on a page they are that
// page's characters, whose flesh then stays as it last was.

const lastTurn = new WeakMap<object, Promise<unknown>>();

/** Runs `work` once everything already asked of `runtime` has finished (or failed). */
export function inTurn<T>(runtime: object, work: () => Promise<T>): Promise<T> {
  const turn = (lastTurn.get(runtime) ?? Promise.resolve()).then(work);
  lastTurn.set(runtime, turn.catch(() => undefined));
  return turn;
}
