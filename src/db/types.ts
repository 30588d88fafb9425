// Table types as Kysely sees them. Times are ISO-8601 UTC strings with milliseconds in both
// dialects (they sort as text and come back byte-identical); JSON documents are text.
import type { Generated } from 'kysely';

export interface UsersTable {
  id: string;
  email: string;
  created_at: string;
  updated_at: string;
  /** `scrypt$...` (modules/users/password.ts); null until the user sets a password. */
  password_hash: string | null;
}

export interface TokensTable {
  id: string;
  user_id: string;
  kind: string; // 'pat' | 'oauth'
  name: string;
  prefix: string;
  hash: string;
  scopes: string; // JSON array
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface DecksTable {
  id: string;
  user_id: string;
  title: string;
  description: string | null;
  lang: string;
  visibility: string;
  tags: string; // JSON array
  thumbnail: string | null;
  card_count: number;
  created_at: string;
  updated_at: string;
  /** Set while the deck is in its owner's trash (purged 30 days later); null otherwise. */
  deleted_at: string | null;
}

export interface CardsTable {
  id: string;
  deck_id: string;
  position: number;
  /** The card's content as stored JSON: front, back, oneSided, frontMedia, backMedia, extras. */
  data: string;
  content_hash: string;
}

export interface IdempotencyKeysTable {
  user_id: string;
  operation: string;
  idempotency_key: string;
  request_hash: string;
  state: string; // 'pending' | 'done'
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  claimed_at: string;
}

export interface ActivityTable {
  id: Generated<number>;
  token_id: string;
  user_id: string;
  at: string;
  method: string;
  route: string;
  deck_id: string | null;
  status: number;
  duration_ms: number;
  client_ip: string | null;
  user_agent: string | null;
  request_id: string;
  /** The catalog code of a refused call (migration 0009); null for a success. */
  error_code: string | null;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface ReviewSessionsTable {
  id: string;
  user_id: string;
  deck_id: string;
  status: string; // 'active' | 'completed' | 'abandoned'
  deck_version: string;
  cards: string; // JSON array of card ids, in review order (a relearn return appends its card again)
  answered: number;
  relearn: number; // 1: a card rated `again` comes back at the end of the queue, up to 3 times
  stats: string | null; // JSON, written once on completion
  started_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface ReviewAnswersTable {
  session_id: string;
  card_id: string;
  pass: number; // 0: the card's place in the queue; 1 to 3: its relearn returns
  seq: number;
  rating: string; // 'again' | 'hard' | 'good' | 'easy'
  duration_ms: number | null;
  answered_at: string;
  due: string;
}

/** A ts-fsrs Card per user and card. */
export interface CardSchedulesTable {
  user_id: string;
  card_id: string;
  deck_id: string | null; // the card's deck (cards never change decks), for per-deck due counts
  due: string;
  stability: number;
  difficulty: number;
  elapsed_days: number;
  scheduled_days: number;
  learning_steps: number;
  reps: number;
  lapses: number;
  state: number;
  last_review: string | null;
}

/** oidc-provider's models (src/modules/oauth/oauth-adapter.ts). */
export interface OauthEntitiesTable {
  model: string;
  id: string;
  payload: string; // JSON
  grant_id: string | null;
  account_id: string | null;
  uid: string | null;
  expires_at: string | null;
  consumed_at: string | null;
}

/** A signed-in browser (modules/sessions). */
export interface WebSessionsTable {
  id_hash: string;
  user_id: string;
  created_at: string;
  seen_at: string;
}

/** An image, stored once per content hash (modules/media). */
export interface MediaBlobsTable {
  hash: string;
  content_type: string;
  bytes: number;
  width: number;
  height: number;
  data: Buffer;
  created_at: string;
}

/** Who brought an image (their quota); unreferenced_since set by the purge (modules/media). */
export interface MediaOwnersTable {
  user_id: string;
  hash: string;
  created_at: string;
  unreferenced_since: string | null;
}

/** The full-text index's documents (modules/search): a deck's own, and one per card. */
export interface SearchDocumentsTable {
  deck_id: string;
  /** The card's id, or the deck's id for the deck's own document. */
  doc_id: string;
}

/** A deck's tags in lower case (GET /decks?tag=). */
export interface DeckTagsTable {
  deck_id: string;
  tag_key: string;
}

export interface Database {
  users: UsersTable;
  tokens: TokensTable;
  decks: DecksTable;
  cards: CardsTable;
  idempotency_keys: IdempotencyKeysTable;
  activity: ActivityTable;
  settings: SettingsTable;
  review_sessions: ReviewSessionsTable;
  review_answers: ReviewAnswersTable;
  card_schedules: CardSchedulesTable;
  oauth_entities: OauthEntitiesTable;
  web_sessions: WebSessionsTable;
  media_blobs: MediaBlobsTable;
  media_owners: MediaOwnersTable;
  search_documents: SearchDocumentsTable;
  deck_tags: DeckTagsTable;
}
