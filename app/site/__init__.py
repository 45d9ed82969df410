"""Pages that show several domains together: the problem list and page, the account page.

They sit above the domains they compose (problems, submissions, drafts, accounts), so that no
domain imports another one sideways to draw a page (see the import graph in docs/architecture.md).
"""
