// Transport to the servers: gRPC-Web (@connectrpc/connect-web) to the lobby's web port (this
// page's own origin) and to each match server's web port (its URL from /config.json). The token
// travels in the `authorization: Bearer …` header only, never in a URL.
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { LobbyService } from "./gen/wordarena/v1/lobby_pb.js";
import { MatchService } from "./gen/wordarena/v1/match_pb.js";
import { TournamentService } from "./gen/wordarena/v1/tournament_pb.js";
import { RuleViolationSchema } from "./gen/wordarena/v1/errors_pb.js";
import { session } from "./session.js";

export type LobbyClient = Client<typeof LobbyService>;
export type MatchClient = Client<typeof MatchService>;
export type TournamentClient = Client<typeof TournamentService>;

const auth: Interceptor = (next) => async (req) => {
  const token = session.token();
  if (token) req.header.set("authorization", `Bearer ${token}`);
  return next(req);
};

const lobbyTransport = createGrpcWebTransport({ baseUrl: location.origin, interceptors: [auth] });
export const lobby: LobbyClient = createClient(LobbyService, lobbyTransport);
/** TournamentService: served on the lobby's web port too. */
export const tournamentService: TournamentClient = createClient(TournamentService, lobbyTransport);

let config: Promise<Record<string, string>> | undefined;
const matchClients = new Map<string, MatchClient>();

function loadConfig(): Promise<Record<string, string>> {
  return fetch("/config.json", { cache: "no-store" })
    .then((r) => (r.ok ? r.json() : { match_servers: {} }))
    .then((c: { match_servers?: Record<string, string> }) => c.match_servers ?? {});
}

/** The match server's web URL for its gRPC address, from the lobby's /config.json (read again
 * when the address is not in the copy read earlier: match servers register as they start). */
async function webUrl(address: string): Promise<string> {
  config ??= loadConfig();
  let url = (await config)[address];
  if (!url) {
    config = loadConfig();
    url = (await config)[address];
  }
  if (!url) throw new Error(`no web address is configured for the match server ${address}`);
  return url.replace(/\/$/, "");
}

/** A client of the match server at gRPC address `address`. */
export async function matchClient(address: string): Promise<MatchClient> {
  let client = matchClients.get(address);
  if (!client) {
    const baseUrl = await webUrl(address);
    client = createClient(MatchService, createGrpcWebTransport({ baseUrl, interceptors: [auth] }));
    matchClients.set(address, client);
  }
  return client;
}

/** A refusal as a player reads it: the rule's own message when the server attached one. */
export function describeError(err: unknown): string {
  const e = ConnectError.from(err);
  if (e.code === Code.Canceled) return "cancelled";
  const rule = e.findDetails(RuleViolationSchema)[0];
  if (rule) return rule.message || rule.codeName;
  return e.rawMessage || Code[e.code];
}

export function isCode(err: unknown, code: Code): boolean {
  return err instanceof ConnectError && err.code === code;
}

/** A fresh idempotency key for a mutating call. */
export function requestId(): string {
  return crypto.randomUUID();
}
