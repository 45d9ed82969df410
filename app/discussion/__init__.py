"""Discussion: a thread per problem for questions and answers (replies, votes, edit history, marks)."""
