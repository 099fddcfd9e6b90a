-- Personal health data. Every row belongs to one account; deleting the account deletes it all.

-- One profile per account. Its existence with consent_given = true is the account's consent:
-- deleting the profile withdraws consent (and deletes the logs and lab panels with it).
create table health_profiles (
  account_id uuid primary key references accounts (id) on delete cascade,
  consent_given boolean not null check (consent_given),
  conditions text[] not null default '{}',
  medications text[] not null default '{}',
  consented_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Health logs (trackers). Ids are UUIDv7 from the application, so `order by id desc` is newest
-- first and a keyset cursor on id is stable while logs are created or deleted.
-- `entry_seq` numbers the log's entries; bumping it locks the row, which serializes concurrent
-- inserts into one log so the newest-180 cap is exact.
create table trackers (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  title text not null check (char_length(title) between 1 and 80),
  kind text not null check (kind in ('acute', 'pregnancy', 'custom')),
  status text not null default 'active' check (status in ('active', 'resolved', 'archived')),
  entry_seq bigint not null default 0,
  started_at timestamptz not null default now(),
  resolved_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index trackers_account_idx on trackers (account_id, id desc);

create table tracker_entries (
  id uuid primary key,
  tracker_id uuid not null references trackers (id) on delete cascade,
  seq bigint not null,
  severity smallint check (severity between 0 and 10),
  symptoms text[] not null default '{}',
  temperature numeric(4, 1) check (temperature > 0),
  temperature_unit text check (temperature_unit in ('C', 'F')),
  activity_impact text check (activity_impact in ('normal', 'limited', 'unable')),
  note text check (char_length(note) <= 1200),
  recorded_at timestamptz not null default clock_timestamp(),
  check ((temperature is null) = (temperature_unit is null)),
  unique (tracker_id, seq)
);

-- Structured lab results per account, filled by upload processing (a later issue); here so that
-- deleting the health profile deletes them too.
create table lab_panels (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  source_file_id uuid,
  collected_at timestamptz,
  results jsonb not null default '[]',
  created_at timestamptz not null default now()
);

create index lab_panels_account_idx on lab_panels (account_id);
