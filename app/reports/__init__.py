"""Reports of a problem's tests: a learner says a case of their submission is wrong; the problem's
owners and the instructors whose course sees that submission answer, fix and re-judge."""
