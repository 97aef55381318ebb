"""For the test suite and the benchmarks only: the hooks they switch on in a jobctrl
process (``hooks``). Production never sets any of them."""
