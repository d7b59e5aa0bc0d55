
  @#!$ junk
// expect: 2:3 expected a declaration
