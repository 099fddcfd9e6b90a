-- MONDO disease terms (`bun run mondo:load`): the source of truth the Meilisearch `conditions`
-- index is built from. Obsolete terms are not kept. `parents` holds MONDO ids only (is_a edges);
-- children are found through the GIN index, so a reload never has to rewrite a parent's row.
create table conditions (
  id text primary key check (id ~ '^MONDO:[0-9]{7}$'),
  label text not null,
  definition text,
  synonyms jsonb not null default '[]',
  xrefs text[] not null default '{}',
  parents text[] not null default '{}',
  descendants integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index conditions_parents_idx on conditions using gin (parents);
