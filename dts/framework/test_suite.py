# SPDX-License-Identifier: BSD-3-Clause
"""Base class of every suite (DPDK DTS's TestSuite shape on pytest)."""

from .node import LocalNode


class TestSuite:
    """Subclass as ``TestSuite_<feature>`` in ``dts/tests/TestSuite_<feature>.py``.

    Override ``set_up_all`` (build the testbed, start the app) and, if you
    need more than the node's cleanup, ``tear_down_all``. ``self.node`` owns
    every namespace, link and process, and removes them whatever happens.
    """

    node: LocalNode = None

    def set_up_all(self):
        pass

    def tear_down_all(self):
        pass

    # pytest hooks: class-level set-up and guaranteed teardown.
    @classmethod
    def setup_class(cls):
        cls.node = LocalNode()
        inst = cls()
        try:
            inst.set_up_all()
        except BaseException:
            cls.node.cleanup()
            raise
        cls._inst = inst
        # Attributes set in set_up_all become class attributes so every
        # test method's instance sees them.
        for k, v in vars(inst).items():
            setattr(cls, k, v)

    @classmethod
    def teardown_class(cls):
        try:
            cls._inst.tear_down_all()
        finally:
            cls.node.cleanup()
