# SPDX-License-Identifier: BSD-3-Clause
"""ewyk DTS: end-to-end suites run on one machine.

Shaped after DPDK's DTS: a *node* runs commands and owns what it creates
(network namespaces, veth pairs, processes); a *test suite* is a class
``TestSuite_<feature>`` with ``set_up_all``/``tear_down_all`` and ``test_*``
(functional) or ``test_perf_*`` (performance) methods. Suites are collected
and run by pytest (see ``dts/conftest.py``), so the summary line at the end
is pytest's.
"""
