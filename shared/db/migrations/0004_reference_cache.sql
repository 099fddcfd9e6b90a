-- Answers from reference upstreams (RxNav, openFDA), keyed by the normalized query. Fresh entries
-- are served without asking the upstream; stale ones are served, flagged, when the upstream is down.
create table reference_cache (
  source text not null check (source in ('rxnav', 'openfda')),
  key text not null,
  value jsonb not null,
  fetched_at timestamptz not null default now(),
  primary key (source, key)
);
