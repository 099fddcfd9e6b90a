-- Conversations and their messages, stored as AI SDK UI messages (parts as JSON).
create table chats (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  surface text not null check (surface in ('health', 'research')),
  title text not null check (char_length(title) between 1 and 120),
  pinned boolean not null default false,
  archived boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index chats_account_idx on chats (account_id, surface, id desc);

-- `turn_id` is the id of the user message an assistant message answers: unique, so a retried or
-- duplicated turn can never store two replies.
create table chat_messages (
  id text primary key,
  chat_id uuid not null references chats (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  parts jsonb not null,
  metadata jsonb not null default '{}',
  turn_id text unique,
  created_at timestamptz not null default clock_timestamp()
);

create index chat_messages_chat_idx on chat_messages (chat_id, created_at);

-- Read-only share links; the token is stored hashed, like API keys.
create table chat_shares (
  id uuid primary key,
  chat_id uuid not null references chats (id) on delete cascade,
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
