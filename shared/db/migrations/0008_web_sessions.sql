-- Website sign-in: a password per account (optional: API-only accounts have none) and sessions.
-- Passwords are argon2id hashes in PHC string form (Bun.password), so the algorithm and its
-- parameters travel with each hash and can change without a migration.
create table account_passwords (
  account_id uuid primary key references accounts (id) on delete cascade,
  password_hash text not null,
  updated_at timestamptz not null default now()
);

-- Only a SHA-256 hash of each session cookie is stored, so a read of this table (a backup, a log
-- of a query) cannot be replayed as a cookie. `expires_at` slides with use but never passes
-- `absolute_expires_at`; the CSRF token is per session and sent back in a header.
create table web_sessions (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  token_hash bytea not null unique,
  csrf_token text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  absolute_expires_at timestamptz not null,
  check (expires_at <= absolute_expires_at)
);

create index web_sessions_account_idx on web_sessions (account_id);
create index web_sessions_expires_idx on web_sessions (expires_at);
