// The watchers' channel for players: while a match runs the server shows a player no watcher's
// message; once it is over a player may read them (ListLog). The page then asks for them once.
import type { MatchClient } from "./api.js";
import type { ChatMessage } from "./gen/wordarena/v1/common_pb.js";

export interface Said { seq: bigint; chat: ChatMessage }
import { LogChannel } from "./gen/wordarena/v1/match_pb.js";

/** The watchers' messages of a finished match, oldest first (ListLog pages come newest first). */
export async function watchersChat(client: MatchClient, matchId: string, signal: AbortSignal): Promise<Said[]> {
  const out: Said[] = [];
  let pageToken = "";
  for (let page = 0; page < 50; page++) {
    const res = await client.listLog({ matchId, channel: LogChannel.CHAT, pageSize: 200, pageToken }, { signal });
    for (const ev of res.events) {
      if (ev.kind.case === "chat" && ev.kind.value.observers) out.push({ seq: ev.seq, chat: ev.kind.value });
    }
    pageToken = res.nextPageToken;
    if (!pageToken) break;
  }
  return out.reverse();
}
