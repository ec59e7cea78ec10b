// Who the player is: the token and the player, kept in localStorage (the token is only ever sent
// in the authorization header).
export interface Me {
  playerId: string;
  displayName: string;
}

const TOKEN = "wordarena.token";
const ME = "wordarena.me";

export const session = {
  token(): string | null {
    return localStorage.getItem(TOKEN);
  },
  me(): Me | null {
    const raw = localStorage.getItem(ME);
    if (!raw) return null;
    try {
      return JSON.parse(raw) as Me;
    } catch {
      return null;
    }
  },
  save(token: string, me: Me): void {
    localStorage.setItem(TOKEN, token);
    localStorage.setItem(ME, JSON.stringify(me));
  },
  clear(): void {
    localStorage.removeItem(TOKEN);
    localStorage.removeItem(ME);
  },
};
