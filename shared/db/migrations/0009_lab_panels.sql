-- Lab panels as the API serves them: when the sample was collected, the lab, where the panel was
-- read from (an upload and its pages, for imports), and the results as one jsonb array (a panel is
-- always read and written whole). The table has never been written, so tightening it is safe.
alter table lab_panels
  add column lab text check (char_length(lab) between 1 and 200),
  add column source_pages integer[],
  add constraint lab_panels_results_array check (jsonb_typeof(results) = 'array'),
  add constraint lab_panels_pages_need_file check (source_pages is null or source_file_id is not null);

update lab_panels set collected_at = created_at where collected_at is null;
alter table lab_panels alter column collected_at set not null;

-- Lists page by (collected_at desc, id desc) with a keyset cursor, and an analyte's history scans
-- the account's panels in the same order; one index serves both.
drop index lab_panels_account_idx;
create index lab_panels_account_collected_idx on lab_panels (account_id, collected_at desc, id desc);
