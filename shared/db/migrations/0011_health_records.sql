-- Health records imported from a FHIR R4 Bundle or a C-CDA document. One row per import of one
-- upload; its items and its lab panels belong to it, so undoing an import is deleting its row.
create table health_record_imports (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  file_id uuid not null,
  filename text not null,
  sha256 text not null,
  format text not null check (format in ('fhir', 'ccda')),
  -- Whom the record is about, as it names them: a later record for someone else is asked about.
  patient_name text,
  patient_birth_date text,
  -- What was kept and skipped (by resource type), and validation problems: the import's summary.
  summary jsonb not null,
  created_at timestamptz not null default now(),
  unique (account_id, file_id)
);

create index health_record_imports_account_idx on health_record_imports (account_id, created_at desc);
create index health_record_imports_sha_idx on health_record_imports (account_id, sha256);

-- Conditions, medications, allergies and immunizations read from an import, each with its source
-- (file, resource type and id, date) inside `item`.
create table health_record_items (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  import_id uuid not null references health_record_imports (id) on delete cascade,
  kind text not null check (kind in ('condition', 'medication', 'allergy', 'immunization')),
  position integer not null,
  item jsonb not null check (jsonb_typeof(item) = 'object'),
  unique (import_id, kind, position)
);

create index health_record_items_account_idx on health_record_items (account_id, kind);

-- Lab panels read from an imported record go with the import when it is undone.
alter table lab_panels add column record_import_id uuid references health_record_imports (id) on delete cascade;
create index lab_panels_record_import_idx on lab_panels (record_import_id) where record_import_id is not null;

-- Read-only links to a summary of the account's health data, for a doctor. Only the token's
-- SHA-256 is stored; the link shows nothing that identifies the account.
create table share_links (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  token_sha256 text not null unique,
  label text check (char_length(label) between 1 and 80),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);

create index share_links_account_idx on share_links (account_id, created_at desc);

-- Every opening of a share link: when, what was opened, and from where (the audit trail).
create table share_link_opens (
  id bigint generated always as identity primary key,
  link_id uuid not null references share_links (id) on delete cascade,
  opened_at timestamptz not null default now(),
  view text not null check (view in ('page', 'fhir')),
  client_address text,
  user_agent text check (char_length(user_agent) <= 300)
);

create index share_link_opens_link_idx on share_link_opens (link_id, opened_at desc);
