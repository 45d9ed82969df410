"""Published solutions: after solving (or giving up) a learner reads how others solved a problem,
votes, comments, compares with their own code, and reads the problem's editorial."""
