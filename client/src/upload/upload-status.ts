// What an upload's placeholder says while the server has it: its place in the server's line and the time it may
// take while it waits, then how far the bake has gone (UploadState in docs/protocol.md). The bake's stages
// (sampling, fields, cubature) are the server's business: a visitor reads "making it soft".

export interface UploadStatus { stage: string; progress: number; ahead: number; secondsLeft: number }

/** "waiting: 2nd in line, about 12 s", "making it soft: 40%, about 3 s". */
export function uploadStatusLabel(u: UploadStatus): string {
  const estimate = u.secondsLeft >= 1 ? `, about ${Math.round(u.secondsLeft)} s` : "";
  if (u.stage === "queued") return u.ahead > 0 ? `waiting: ${ordinal(u.ahead + 1)} in line${estimate}` : "starting";
  return `making it soft: ${Math.round(100 * (Number.isFinite(u.progress) ? u.progress : 0))}%${estimate}`;
}

/** 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st ... */
function ordinal(n: number): string {
  const tens = n % 100, ones = n % 10;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}
