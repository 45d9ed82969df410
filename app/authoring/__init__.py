"""Instructor authoring: working copies (drafts), validation, publishing and versions.

A problem has at most one *draft* (its working copy, ``ProblemDraft``) and zero or more immutable
*versions*; learners only ever see the current version of a published problem. The rules:

- creating a problem stores a draft and an unpublished ``Problem`` row: invisible to students.
  Its creator is its author (``ownership.py``). An instructor's problem is course-only: it names a
  course they teach and is seen only inside it; an admin's may be site-wide;
- saving stores the draft and nothing else: what learners see never changes on a save;
- publishing validates the working copy, turns it into version N+1 (the importer's
  ``import_problem``, so files and hashes match the bank import exactly) and drops the draft;
  earlier submissions keep pointing at the version they ran;
- unpublishing hides the problem again; versions and submissions stay;
- only an admin publishes a course-only problem site-wide (then it joins its category's track).

Every function that reads or changes a problem takes the acting user and goes through
``ownership.editable``: owners and admins only.

Validation runs before anything is written, so no write transaction is held while the sandbox works.

By concern: ``listing.py`` (the problems an author may edit), ``working_copy.py`` (the draft or
the live version, as the editor and exports read it), ``checking.py`` (the format check, validation,
Markdown previews), ``editing.py`` (create, save, upload a zip, discard the draft),
``publishing.py`` (publish, unpublish, site-wide); ``ownership.py`` (who may edit), ``archive.py``
(zips), ``validation.py`` (the runner's validation plus the app's Markdown checks).
"""
