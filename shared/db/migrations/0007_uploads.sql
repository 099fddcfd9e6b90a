-- Uploaded files (lab reports, photos) and what processing found in them.
-- States: pending (presigned) → uploaded (bytes stored) → processing → ready | failed.
create table uploads (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  scope text not null check (scope in ('health')),
  filename text not null,
  content_type text not null,
  size bigint not null check (size > 0),
  status text not null default 'pending' check (status in ('pending', 'uploaded', 'processing', 'ready', 'failed')),
  failure_reason text,
  sha256 text,
  -- pages (PDF), width/height and the downscaled copy's key (images), characters of text
  details jsonb not null default '{}',
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index uploads_account_idx on uploads (account_id, id desc);
create index uploads_pending_idx on uploads (expires_at) where status = 'pending';

-- Text extracted from a PDF, one row per page (kept out of `uploads` so listings stay small).
create table upload_pages (
  upload_id uuid not null references uploads (id) on delete cascade,
  page integer not null,
  text text not null,
  primary key (upload_id, page)
);
