// One line per kind of event at most once a second, with a count of the lines held back since: a client that sends
// garbage as fast as it can must not flood the operator's terminal (or fill the disk).

export type LogLine = (line: string) => void;

export function throttledLog(log: LogLine, intervalMs = 1000): (kind: string, line: string) => void {
  const last = new Map<string, { at: number; held: number }>();
  return (kind, line) => {
    const now = Date.now(), seen = last.get(kind);
    if (seen && now - seen.at < intervalMs) {
      seen.held++;
      return;
    }
    log(seen?.held ? `${line} (and ${seen.held} more like it since the last)` : line);
    last.set(kind, { at: now, held: 0 });
    if (last.size > 1000) last.clear();
  };
}
