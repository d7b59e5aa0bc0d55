#include <stdio.h>
int main() { printf("hi"); return 0; }
// expect: 1:1 no `__global__` kernel
