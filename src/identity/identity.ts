/** Who is calling, as established from their key. */
export interface Identity {
  developer: string;
  organisation: string;
  tier: string;
  capTokens: number;
}
