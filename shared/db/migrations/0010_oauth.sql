-- The OAuth 2.1 authorization server's records (oidc-provider's adapter models: clients, grants,
-- codes, tokens, sessions, interactions) in one table keyed by model kind and id. Bearer values
-- (codes, tokens, session and interaction ids) are stored as their SHA-256, so a read of this table
-- cannot be replayed; client and grant ids, which grant nothing alone, are stored as they are.
-- `account_id` ties a user's records to the account, so deleting the account deletes them.
create table oauth_records (
  kind text not null,
  id text not null,
  payload jsonb not null,
  grant_id text,
  uid text,
  user_code text,
  account_id uuid references accounts (id) on delete cascade,
  expires_at timestamptz,
  consumed_at timestamptz,
  primary key (kind, id)
);

create index oauth_records_grant_idx on oauth_records (grant_id) where grant_id is not null;
create index oauth_records_uid_idx on oauth_records (uid) where uid is not null;
create index oauth_records_account_idx on oauth_records (account_id, kind) where account_id is not null;
create index oauth_records_expires_idx on oauth_records (expires_at) where expires_at is not null;

-- The keys every API process signs with (cookies of the authorization flow; the JWKS), made once
-- by whichever process needs them first, so a fleet agrees without configuration.
create table oauth_server_keys (
  id smallint primary key check (id = 1),
  jwks jsonb not null,
  cookie_keys jsonb not null,
  created_at timestamptz not null default now()
);
