// onnxruntime-node's runs in this thread, counted, so that a worker thread can be stopped safely. A worker terminated
// while a native run is in flight aborts the whole process ("terminate called after throwing an instance of
// 'Napi::Error'": the run's completion throws into the terminated thread's environment). A thread that is asked to
// stop refuses new runs and waits for the ones in flight (test/uploads/native-runs.test.ts).

import type { OrtModule, OrtSession } from "../../shared/skinning";

let inFlight = 0;
let stopping = false;
const idle: (() => void)[] = [];

/** The module with every session's runs counted (and refused once the thread is stopping). */
export function countedRuns(ort: OrtModule): OrtModule {
  return {
    Tensor: ort.Tensor,
    InferenceSession: {
      async create(model, options) {
        const session = await ort.InferenceSession.create(model, options);
        const run = session.run.bind(session);
        const counted: OrtSession = Object.create(session);
        counted.run = async (feeds) => {
          if (stopping) throw new Error("this thread is stopping: no more inference");
          inFlight++;
          try {
            return await run(feeds);
          } finally {
            if (--inFlight === 0) for (const resolve of idle.splice(0)) resolve();
          }
        };
        return counted;
      },
    },
  };
}

/** Whether the thread has been asked to stop (its work then ends unanswered: the one who stopped it says why). */
export function nativeRunsStopping(): boolean {
  return stopping;
}

/** Refuses new runs from now on; resolves once none is in flight (then the thread may end). */
export function stopNativeRuns(): Promise<void> {
  stopping = true;
  return inFlight === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve));
}
