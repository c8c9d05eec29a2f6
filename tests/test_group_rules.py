"""Every rule of the newest CPython's exception groups that its own tests and the random trees do not reach.

Each snippet runs twice: here with exceptstar's pure classes, and in the newest
native interpreter with the built-ins (all snippets in one subprocess).  The
snippet leaves its observation in ``result``; an exception is an observation too.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from support.interpreters import native_python
from support.processes import run_native, run_python

import exceptstar
from exceptstar import _groups, _notes

SNIPPETS = {
    "args_as_passed": "excs = [ValueError(1)]; eg = ExceptionGroup('m', excs); result = (eg.args, type(eg.args[1]))",
    "exceptions_copied": """
        excs = [ValueError(1)]; eg = ExceptionGroup('m', excs); excs.append(TypeError(2))
        result = (eg.exceptions, str(eg), type(eg.exceptions))""",
    "str_counts": """
        result = [str(ExceptionGroup('', [ValueError()])), str(ExceptionGroup('x', [ValueError(), ValueError()])),
                  str(ExceptionGroup('x', [ExceptionGroup('y', [ValueError(), ValueError()])]))]""",
    "str_subclass_message_kept": """
        class S(str):
            def __str__(self): return 'custom'
        eg = ExceptionGroup(S('m'), [ValueError()]); result = (type(eg.message).__name__, str(eg), eg.message)""",
    "repr_from_args": """
        result = [repr(ExceptionGroup('flat', [ValueError(1), TypeError(2)])),
                  repr(BaseExceptionGroup('b', (KeyboardInterrupt(),))),
                  repr(BaseExceptionGroup('b', [ValueError(1)]))]""",
    "repr_from_message_and_members": """
        class L(list):
            def __repr__(self): return 'L!'
        class T(tuple):
            def __repr__(self): return 'T!'
        out = []
        for excs in ([ValueError()], (ValueError(),), L([ValueError()]), T((ValueError(),))):
            eg = ExceptionGroup('m', excs)
            out.append(repr(eg))
            for args in ((), (1,), ('a', [1]), ('a', [1], 3), ('a', (1,)), ('a', L()), ('a', 'b', 'c')):
                eg.args = args
                out.append(repr(eg))
        class E(ExceptionGroup):
            def __new__(cls, message, excs, extra): return super().__new__(cls, message, excs)
            def __init__(self, *args): super().__init__(*args)
        e = E('m', [ValueError()], 3)
        out.append((repr(e), e.args))
        class M(str):
            def __repr__(self): return 'M!'
        out.append(repr(ExceptionGroup(M('z'), [ValueError()])))
        class Named(ExceptionGroup): pass
        Named.__name__ = 'dotted.Named'
        out.append(repr(Named('m', [ValueError()])))
        result = out""",
    "repr_of_other_sequences_at_construction": """
        import collections, collections.abc
        excs = collections.deque([ValueError(1), TypeError(2)])
        eg = ExceptionGroup('m', excs); excs.clear(); excs.append(KeyError())
        out = [repr(eg), eg.args[1] is excs]
        class Seq(collections.abc.Sequence):
            def __init__(self, items, shown): self.items, self.shown = items, shown
            def __len__(self): return len(self.items)
            def __getitem__(self, i): return self.items[i]
            def __repr__(self):
                out.append('repr')
                if isinstance(self.shown, type): raise self.shown('from repr')
                return self.shown
        class S(str): pass
        class Outer:
            class Inner: pass
        for items in ([ValueError()], [], [1], [KeyboardInterrupt()]):
            for shown in (None, 5, S('s!'), Outer.Inner(), KeyError):
                for cls in (ExceptionGroup, BaseExceptionGroup):
                    try: out.append(repr(cls('m', Seq(items, shown))))
                    except Exception as error: out.append(type(error).__name__ + ': ' + str(error))
        Seq.__module__ = 'elsewhere'
        try: ExceptionGroup('m', Seq([ValueError()], None))
        except TypeError as error: out.append(str(error))
        for args in ((None, Seq([ValueError()], None)), ('m', Seq([ValueError()], None), 3)):
            try: ExceptionGroup(*args)
            except TypeError as error: out.append(str(error))
        result = out""",
    "member_checks_by_type_pattern": """
        out = []
        members = ([1], [1, 2], [ValueError(), 1], [1, ValueError()], [KeyboardInterrupt()],
                   [KeyboardInterrupt(), KeyboardInterrupt()], [ValueError(), KeyboardInterrupt()],
                   [ValueError(), ValueError()], [TypeError, TypeError])
        for cls in (BaseExceptionGroup, ExceptionGroup):
            for excs in members:
                try:
                    out.append(repr(cls('m', excs)))
                except Exception as error:
                    out.append(type(error).__name__ + ': ' + str(error))
        result = out""",
    "keywords_ignored_by_new_rejected_by_init": """
        out = []
        for cls in (BaseExceptionGroup, ExceptionGroup):
            try: cls('m', [ValueError()], extra=1)
            except TypeError as e: out.append(str(e))
        result = out""",
    "subclass_init_extra_args_and_keywords": """
        class EG(ExceptionGroup):
            def __new__(cls, message, excs, *extra, **kw):
                return super().__new__(cls, message, excs)
            def __init__(self, message, excs, code, *, flag=False):
                super().__init__(message, excs, code)
                self.flag = flag
        eg = EG('m', [ValueError()], 42, flag=True)
        result = (eg.args, eg.flag, type(eg).__name__, repr(eg), str(eg))""",
    "init_is_the_group_types_own": """
        result = (BaseExceptionGroup.__init__ is ExceptionGroup.__init__,
                  BaseExceptionGroup.__init__ is BaseException.__init__,
                  '__init__' in vars(BaseExceptionGroup), '__init__' in vars(ExceptionGroup),
                  BaseExceptionGroup.__init__.__doc__)""",
    "init_never_reaches_a_mixin": """
        calls = []
        class Mixin:
            def __init__(self, *args, **kwargs): calls.append(args)
        class G(ExceptionGroup, Mixin): pass
        class H(Mixin, ExceptionGroup): pass
        g = G('m', [ValueError(1)]); h = H('m', [ValueError(2)])
        result = (calls, g.args, repr(g), type(h).__name__)""",
    "init_called_again_and_unbound": """
        import traceback
        out = []
        eg = ExceptionGroup('m', [ValueError()])
        eg.__init__('a', 'b', 'c'); out.append((eg.args, eg.message, eg.exceptions))
        eg.__init__(); out.append(eg.args)
        for obj, kwargs in ((eg, {'x': 1}), (ValueError(), {}), (BaseExceptionGroup('b', [KeyboardInterrupt()]), {})):
            try:
                BaseExceptionGroup.__init__(obj, 'x', **kwargs); out.append(obj.args)
            except TypeError as e:
                out.append((str(e), len(traceback.extract_tb(e.__traceback__))))
        class Sub(ExceptionGroup): pass
        try: Sub('m', [ValueError()], flag=1)
        except TypeError as e: out.append((str(e), len(traceback.extract_tb(e.__traceback__))))
        result = out""",
    "subclass_without_super_init": """
        class EG(ExceptionGroup):
            def __init__(self, *args): pass
        eg = EG('m', [ValueError()]); result = (eg.args, eg.message)""",
    "readonly_fields": """
        eg = ExceptionGroup('m', [ValueError()]); out = []
        for name in ('message', 'exceptions'):
            try: setattr(eg, name, 'x')
            except AttributeError as e: out.append((name, str(e)))
            try: delattr(eg, name)
            except AttributeError as e: out.append((name, str(e)))
        result = out""",
    "new_of_a_class_that_is_not_a_group": """
        try: BaseExceptionGroup.__new__(ValueError, 'x', [ValueError()])
        except TypeError as e: result = str(e)""",
    "type_selection": """
        class MyBEG(BaseExceptionGroup): pass
        class MyEG(ExceptionGroup): pass
        class MyBE(MyBEG, Exception): pass
        out = [type(BaseExceptionGroup('m', [ValueError()])).__name__,
               type(BaseExceptionGroup('m', [KeyboardInterrupt()])).__name__,
               type(MyBEG('m', [ValueError()])).__name__, type(MyBEG('m', [SystemExit()])).__name__]
        for cls in (ExceptionGroup, MyEG, MyBE):
            try: cls('m', [KeyboardInterrupt()])
            except TypeError as e: out.append(str(e))
        result = out""",
    "mro": "result = ([c.__name__ for c in ExceptionGroup.__mro__], [c.__name__ for c in BaseExceptionGroup.__mro__])",
    "class_is_not_a_member": "result = ExceptionGroup('m', [ValueError(), ValueError])",
    "mapping_with_getitem_is_a_sequence": """
        class M:
            def __getitem__(self, i):
                if i < 2: return ValueError(i)
                raise IndexError
        result = ExceptionGroup('m', M()).exceptions""",
    "sequences_by_the_c_slot": """
        import array, collections, types
        class D(dict): pass
        class ClaimsDict:
            __class__ = dict
            def __getitem__(self, i): return [ValueError()][i]
            def __repr__(self): return 'ClaimsDict()'
        out = []
        for excs in (types.MappingProxyType({0: ValueError()}), D({0: ValueError()}), ClaimsDict(),
                     collections.deque([ValueError()]), array.array('i', [1]), 'ab', b'', {ValueError()},
                     collections.OrderedDict({0: ValueError()})):
            try: out.append(repr(BaseExceptionGroup('m', excs)))
            except Exception as e: out.append((type(e).__name__, str(e)))
        result = out""",
    "match_objects_are_no_sequence": """
        import re
        result = BaseExceptionGroup('m', re.match('a', 'a'))""",
    "notes_copied_by_the_c_slot": """
        import types
        class ClaimsDict:
            __class__ = dict
            def __getitem__(self, i): return ['n'][i]
        out = []
        for notes in (types.MappingProxyType({0: 'n'}), ClaimsDict()):
            eg = ExceptionGroup('m', [ValueError(1), TypeError(2)]); eg.__notes__ = notes
            m, r = eg.split(ValueError); out.append(getattr(m, '__notes__', '<absent>'))
        result = out""",
    "condition_errors": """
        eg = ExceptionGroup('m', [ValueError(1)]); out = []
        class T(tuple): pass
        for cond in (ValueError(), 'x', 1, (ValueError, 1), [ValueError], T((ValueError,)), ((ValueError,),), int):
            try: out.append(repr(eg.split(cond)))
            except TypeError as e: out.append(str(e))
        result = out""",
    "empty_tuple_matches_nothing": """
        eg = ExceptionGroup('m', [ValueError(1)])
        m, r = eg.split(()); result = (m, r is eg, repr(r), eg.subgroup(()))""",
    "metaclass_checks_ignored": """
        class Meta(type):
            def __instancecheck__(cls, inst): return True
            def __subclasscheck__(cls, sub): return True
        class Anything(Exception, metaclass=Meta): pass
        eg = ExceptionGroup('m', [ValueError(1), TypeError(2)])
        result = (repr(eg.split(Anything)), repr(eg.subgroup((Anything, TypeError))))""",
    "predicate_order_and_truthiness": """
        calls = []
        def pred(e):
            calls.append(repr(e) if not isinstance(e, BaseExceptionGroup) else e.message)
            return [1] if isinstance(e, TypeError) else 0
        eg = ExceptionGroup('top', [ValueError(1), ExceptionGroup('mid', [TypeError(2), KeyError(3)]), TypeError(4)])
        m, r = eg.split(pred)
        result = (calls, repr(m), repr(r))""",
    "identity_only_when_node_matches": """
        v, t = ValueError(1), TypeError(2)
        eg = ExceptionGroup('m', [v, t])
        m, r = eg.split(Exception); m2, r2 = eg.split(lambda e: not isinstance(e, BaseExceptionGroup))
        result = (m is eg, r, m2 is eg, m2.exceptions[0] is v, r2, eg.subgroup(ExceptionGroup) is eg)""",
    "metadata_copied_to_parts": """
        eg = ExceptionGroup('m', [ValueError(1), TypeError(2)])
        try: raise eg
        except ExceptionGroup: pass
        eg.__cause__ = KeyError('c'); eg.__context__ = OSError('x'); eg.__suppress_context__ = False
        eg.__notes__ = ['a']; eg.extra = 'not copied'
        m, r = eg.split(ValueError)
        result = [(p.__traceback__ is eg.__traceback__, p.__cause__ is eg.__cause__, p.__context__ is eg.__context__,
                   p.__suppress_context__, p.__notes__, p.__notes__ is eg.__notes__, hasattr(p, 'extra'))
                  for p in (m, r)]""",
    "notes_that_are_not_lists": """
        out = []
        for notes in ('ab', ('t',), 5, None):
            eg = ExceptionGroup('m', [ValueError(1), TypeError(2)]); eg.__notes__ = notes
            m, r = eg.split(ValueError); out.append(getattr(m, '__notes__', '<absent>'))
        result = out""",
    "notes_lookup_error_propagates": """
        class EG(ExceptionGroup):
            @property
            def __notes__(self): raise RuntimeError('boom')
        try: EG('m', [ValueError(1), TypeError(2)]).split(ValueError)
        except RuntimeError as e: result = str(e)""",
    "derive_must_return_a_group": """
        class EG(ExceptionGroup):
            def derive(self, excs): return ValueError('no')
        try: EG('m', [ValueError(1), TypeError(2)]).split(ValueError)
        except TypeError as e: result = str(e)""",
    "derive_default": """
        class EG(ExceptionGroup): pass
        eg = EG('m', [ValueError(1)]); eg.__notes__ = ['n']; eg.__cause__ = KeyError()
        d = eg.derive([TypeError(2)]); b = BaseExceptionGroup('b', [SystemExit()]).derive([ValueError()])
        result = (type(d).__name__, d.args, d.__cause__, hasattr(d, '__notes__'), type(b).__name__)""",
    "derive_receives_a_list": """
        seen = []
        class EG(ExceptionGroup):
            def derive(self, excs):
                seen.append(type(excs).__name__); return EG(self.message, excs)
        EG('m', [ValueError(1), TypeError(2)]).split(ValueError); result = seen""",
    "generic_alias": "result = repr(ExceptionGroup[ValueError]) if sys.version_info >= (3, 9) else 'n/a'",
    # Not a class, as 3.11 made every types.GenericAlias (3.9/3.10's pass __class__ to the origin).
    "generic_alias_is_no_class": """
        if sys.version_info >= (3, 9):
            import copy, types, typing
            alias = BaseExceptionGroup[KeyError]
            out = [isinstance(alias, type), isinstance(alias, types.GenericAlias), alias.__class__.__name__,
                   typing.get_origin(alias) is BaseExceptionGroup, typing.get_args(alias),
                   alias == BaseExceptionGroup[KeyError], hash(alias) == hash(BaseExceptionGroup[KeyError])]
            for clone in (copy.copy(alias), copy.deepcopy(alias)):
                out.append((type(clone).__name__, clone == alias))
            instance = alias('m', [KeyError(1)])
            out.append(repr(instance.__orig_class__))
            try:
                isinstance(instance, alias)
            except TypeError as error:
                out.append(str(error))
            result = out
        else:
            result = 'n/a'""",
    "copy_deepcopy_pickle": """
        import copy, pickle
        eg = ExceptionGroup('m', [ValueError(1), ExceptionGroup('n', [TypeError(2)])]); eg.__notes__ = ['note']
        out = []
        for clone in (copy.copy(eg), copy.deepcopy(eg), pickle.loads(pickle.dumps(eg))):
            out.append((type(clone).__name__, repr(clone), clone.__notes__, clone.exceptions == eg.exceptions))
        result = out""",
    "pickle_base_group": """
        import pickle
        b = pickle.loads(pickle.dumps(BaseExceptionGroup('b', [KeyboardInterrupt(1)])))
        result = (type(b).__name__, repr(b))""",
    "weak_references": """
        import weakref
        out = []
        for eg in (ExceptionGroup('m', [ValueError()]), BaseExceptionGroup('b', [SystemExit()])):
            try: out.append(weakref.ref(eg)() is eg)
            except TypeError as e: out.append(str(e))
        result = out""",
    "add_note_rules": """
        out = []
        e = ValueError(1); add_note(e, 'a'); add_note(e, 'b'); out.append(e.__notes__)
        try: add_note(e, 1)
        except TypeError as err: out.append(str(err))
        e.__notes__ = ('t',)
        try: add_note(e, 'c')
        except TypeError as err: out.append(str(err))
        class L(list): pass
        e.__notes__ = L(); add_note(e, 'd'); out.append((type(e.__notes__).__name__, list(e.__notes__)))
        g = ExceptionGroup('m', [ValueError()]); add_note(g, 'gn'); out.append(g.__notes__)
        result = out""",
    "add_note_checks_real_types": """
        class ClaimsStr:
            __class__ = str
        class ClaimsList:
            __class__ = list
            def append(self, note): raise AssertionError('appended')
        class OwnAppend(list):
            def append(self, note): raise AssertionError('its own append asked')
        out = []
        for e, note in ((ValueError(), ClaimsStr()), (ExceptionGroup('m', [ValueError()]), ClaimsStr())):
            try: add_note(e, note)
            except TypeError as err: out.append(type(err).__name__)
        for e in (ValueError(), ExceptionGroup('m', [ValueError()])):
            e.__notes__ = ClaimsList()
            try: add_note(e, 'n')
            except TypeError as err: out.append(str(err))
            e.__notes__ = OwnAppend()
            add_note(e, 'n')
            out.append((type(e.__notes__).__name__, list(e.__notes__)))
        result = out""",
    "repr_and_module_names_must_be_real_strs": """
        class ClaimsStr:
            __class__ = str
        class Excs:
            def __getitem__(self, i): return [ValueError()][i]
            def __repr__(self): return ClaimsStr()
        Excs.__module__ = ClaimsStr()
        try: result = repr(ExceptionGroup('m', Excs()))
        except TypeError as err: result = str(err)""",
    "members_and_message_claiming_a_class": """
        class Liar:
            @property
            def __class__(self): return ValueError
        class LyingInterrupt(KeyboardInterrupt):
            @property
            def __class__(self): return ValueError
        class LyingStr:
            @property
            def __class__(self): return str
        out = []
        for cls in (BaseExceptionGroup, ExceptionGroup):
            for excs in ([Liar()], [ValueError(), Liar()], (LyingInterrupt(),), [ValueError(), LyingInterrupt()]):
                try: eg = cls('m', excs); out.append((type(eg).__name__, len(eg.exceptions)))
                except (TypeError, ValueError) as e: out.append(type(e).__name__ + ': ' + str(e))
            try: cls(LyingStr(), [ValueError()])
            except TypeError as e: out.append(str(e))
        class LyingList:
            @property
            def __class__(self): return list
            def __getitem__(self, i): return [ValueError(1)][i]
            def __len__(self): return 1
            def __repr__(self): return 'LyingList!'
        eg = ExceptionGroup('m', LyingList()); eg.args = ('m', [1]); out.append(repr(eg))
        both = BaseExceptionGroup('m', [LyingInterrupt(), KeyboardInterrupt(), SystemExit()])
        for condition in (SystemExit, lambda e: type(e) in (KeyboardInterrupt, SystemExit)):
            out.append([type(part).__name__ for part in both.split(condition)])
        result = out""",
    "short_and_long_member_sequences": """
        class MyError(Exception): pass
        out = []
        for n in (1, 2, 32, 33, 64, 65, 200):
            for kinds in ((ValueError,), (ValueError, TypeError), (ValueError, MyError), (MyError,),
                          (ValueError, KeyboardInterrupt), (KeyboardInterrupt,), (ValueError, int)):
                members = [kinds[i % len(kinds)]() for i in range(n)]
                for cls in (BaseExceptionGroup, ExceptionGroup):
                    for seq in (members, tuple(members)):
                        try:
                            eg = cls('m', seq)
                            out.append((type(eg).__name__, eg.exceptions == tuple(members), eg.args[1] is seq,
                                        type(eg.split(ValueError)[0]).__name__))
                        except (TypeError, ValueError) as e: out.append(str(e))
        result = out""",
    "one_member_sequences": """
        class MyError(Exception): pass
        class L(list): pass
        class T(tuple): pass
        class Liar:
            @property
            def __class__(self): return ValueError
        class MyEG(ExceptionGroup): pass
        out = []
        for member in (ValueError(1), MyError(), KeyboardInterrupt(), 1, ValueError, Liar()):
            for kind in (list, tuple, L, T):
                for cls in (BaseExceptionGroup, ExceptionGroup, MyEG):
                    seq = kind([member])
                    try:
                        eg = cls('m', seq)
                        out.append((type(eg).__name__, eg.exceptions is seq, type(eg.exceptions).__name__,
                                    eg.exceptions == (member,), eg.args[1] is seq, eg.split(type(member))[1]))
                    except (TypeError, ValueError) as e: out.append(type(e).__name__ + ': ' + str(e))
        result = out""",
    "two_member_sequences": """
        class MyError(Exception): pass
        class L(list): pass
        class T(tuple): pass
        class S(str): pass
        class Liar:
            @property
            def __class__(self): return ValueError
        class Unhashed(type):
            __hash__ = None
        class Unhashable(Exception, metaclass=Unhashed): pass
        out = []
        members = (ValueError(1), MyError(), KeyboardInterrupt(), 1, ValueError, Liar(), Unhashable())
        for first in members:
            for second in members:
                for kind in (list, tuple, L, T):
                    for cls in (BaseExceptionGroup, ExceptionGroup):
                        seq = kind([first, second])
                        try:
                            eg = cls(S('m') if kind is list else 'm', seq)
                            out.append((type(eg).__name__, eg.exceptions is seq, type(eg.exceptions).__name__,
                                        eg.exceptions == (first, second), eg.args[1] is seq, type(eg.message).__name__,
                                        [part and len(part.exceptions) for part in eg.split(type(second))]))
                        except (TypeError, ValueError) as e: out.append(type(e).__name__ + ': ' + str(e))
        result = out""",
    "member_class_rebased_between_groups": """
        class A(ValueError): pass
        out = [type(BaseExceptionGroup('m', [A()])).__name__]
        A.__bases__ = (KeyboardInterrupt,)
        out.append(type(BaseExceptionGroup('m', [A()])).__name__)
        try: ExceptionGroup('m', [A()])
        except TypeError as e: out.append(str(e))
        result = out""",
    "construction_errors_show_no_frame_of_the_classes": """
        import traceback
        class S(ExceptionGroup): pass
        class B(BaseExceptionGroup): pass
        out = []
        for cls, excs in ((BaseExceptionGroup, [ValueError()]), (BaseExceptionGroup, [KeyboardInterrupt()]),
                          (ExceptionGroup, [ValueError()]), (S, [ValueError()]), (B, [SystemExit()])):
            try: cls('m', excs, x=1)
            except TypeError as e: out.append((str(e), len(traceback.extract_tb(e.__traceback__))))
        for args in ((), ('m',), ('m', [ValueError()], 1), (1, [ValueError()]), ('m', []), ('m', [1]),
                     ('m', [ValueError(), 1]), ('m', 1)):
            try: ExceptionGroup(*args)
            except (TypeError, ValueError) as e:
                out.append((str(e), len(traceback.extract_tb(e.__traceback__)), e.__context__))
        result = out""",
    "traceback_names_the_class_plainly": """
        import traceback
        result = traceback.format_exception_only(ExceptionGroup, ExceptionGroup('m', [ValueError()]))""",
    "split_sees_members_whose_class_changed": """
        class A(Exception): pass
        class B(Exception): pass
        class V(ValueError): pass
        class W(ValueError): pass
        out = []
        for members, new_class, conditions in (([A(), ValueError()], B, (ValueError, B, A, (A, B))),
                                               ([V()], W, (V, W, ValueError)), ([V(), V(), A()], W, (V, W, A))):
            eg = ExceptionGroup('m', members)
            nested = ExceptionGroup('outer', [eg, TypeError()])
            members[0].__class__ = new_class
            for condition in conditions:
                out.append((eg.split(condition), eg.subgroup(condition), nested.split(condition)))
        result = out""",
    "split_rest_derived_after_the_match_notes_ran_code": """
        log = []
        class Notes(list):
            def __iter__(self):
                log.append('iter')
                eg.derive = lambda excs: (log.append(len(excs)), ExceptionGroup('derived', excs))[1]
                return super().__iter__()
        eg = ExceptionGroup('m', [ValueError(1), TypeError(2), ValueError(3)])
        eg.__notes__ = Notes(['n'])
        match, rest = eg.split(ValueError)
        result = (log, match, rest, match.__notes__, rest.__notes__)""",
    "split_by_classes_with_a_metaclass_check": """
        import abc
        log = []
        class Meta(abc.ABCMeta):
            def __subclasscheck__(cls, sub):
                log.append(sub.__name__)
                return True
            def __instancecheck__(cls, inst):
                log.append('instance')
                return True
        class E(Exception, metaclass=Meta): pass
        class F(E): pass
        eg = ExceptionGroup('m', [ValueError(1), F(2), TypeError(3), ExceptionGroup('in', [E(4), KeyError(5)])])
        result = (eg.split((E, KeyError)), eg.split(E), eg.subgroup((TypeError, F)), eg.split(()), log)""",
}

RUNNER = """
import json, sys, textwrap
snippets = json.loads(sys.stdin.read())
out = {}
for name, code in snippets.items():
    ns = {"sys": sys, "add_note": lambda e, n: e.add_note(n)}
    try:
        exec(textwrap.dedent(code), ns)
        out[name] = repr(ns.get("result"))
    except Exception as error:
        out[name] = "raised " + type(error).__name__ + ": " + str(error)
print(json.dumps(out))
"""


def run_pure(code: str) -> str:
    ns: dict[str, Any] = {
        "sys": sys,
        "add_note": _notes.add_note,
        "ExceptionGroup": _groups.ExceptionGroup,
        "BaseExceptionGroup": _groups.BaseExceptionGroup,
    }
    try:
        exec(textwrap.dedent(code), ns)
        return repr(ns.get("result"))
    except Exception as error:
        return "raised " + type(error).__name__ + ": " + str(error)


@pytest.fixture(scope="module")
def native_results() -> dict[str, str]:
    exe = native_python()
    if exe is None:
        pytest.skip("no CPython 3.11+ on this machine")
    proc = run_python(exe, RUNNER, stdin=json.dumps(SNIPPETS))
    assert proc.returncode == 0, proc.stderr
    results: dict[str, str] = json.loads(proc.stdout)
    if sys.version_info >= (3, 11):
        # There a plain exception's add_note is this interpreter's own method, in
        # its own words (3.11-3.13's differ from the newest's): its built-ins are the reference.
        here = {name: SNIPPETS[name] for name in OWN_ADD_NOTE}
        proc = run_python(sys.executable, RUNNER, stdin=json.dumps(here))
        assert proc.returncode == 0, proc.stderr
        results.update(json.loads(proc.stdout))
    return results


# The snippets that call add_note on exceptions that are not groups.
OWN_ADD_NOTE = ("add_note_rules", "add_note_checks_real_types")


# What the pure classes cannot do before the interpreter has the feature.
EXPECTED_DIFFERENCES = {
    "generic_alias": (3, 9),
    "generic_alias_is_no_class": (3, 9),
}


# What PyPy itself does otherwise, whatever the classes do.
PYPY = sys.implementation.name == "pypy"
PYPY39 = PYPY and sys.version_info < (3, 11)
PYPY_DIFFERENCES = {
    "match_objects_are_no_sequence": "PyPy has no C API nor sequence slot to ask: a re.Match, which has a "
                                     "__getitem__, is a sequence there",
    "weak_references": "every instance of a Python class takes weak references on PyPy, however the class "
                       "is made (CPython's C BaseExceptionGroup, and PyPy 3.11's built-in one, refuse them)",
}
PYPY39_DIFFERENCES = {
    "generic_alias_is_no_class": "PyPy 3.9's types.GenericAlias words isinstance()'s refusal as issubclass()'s",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_rule_matches_native(name: str, native_results: dict[str, str]) -> None:
    if PYPY and name in PYPY_DIFFERENCES:
        pytest.skip(PYPY_DIFFERENCES[name])
    if PYPY39 and name in PYPY39_DIFFERENCES:
        pytest.skip(PYPY39_DIFFERENCES[name])
    expected = native_results[name]
    assert not expected.startswith(("raised NameError", "raised SyntaxError")), f"broken snippet: {expected}"
    actual = run_pure(SNIPPETS[name])
    if sys.version_info < EXPECTED_DIFFERENCES.get(name, (0,)):
        assert actual == "'n/a'"
    else:
        assert actual == expected


def test_help_shows_the_arguments_not_given_as_such() -> None:
    # CPython's C classes have no signature; the pure ones show what they take, and nothing of our own.
    shown = str(inspect.signature(_groups.BaseExceptionGroup))
    assert shown.startswith("(message: 'Any' = <not given>, exceptions: 'Any' = <not given>, /, *args")


def test_subscripting_on_3_8_returns_the_class() -> None:
    # No GenericAlias before 3.9: annotations such as ExceptionGroup[ValueError] still evaluate.
    alias = _groups.ExceptionGroup[ValueError]
    if sys.version_info < (3, 9):
        assert alias is _groups.ExceptionGroup
    else:
        assert alias.__origin__ is _groups.ExceptionGroup  # type: ignore[attr-defined]


@pytest.mark.needs_processes
def test_active_classes_follow_the_environment() -> None:
    code = "import exceptstar, builtins; print(exceptstar.PURE, exceptstar.ExceptionGroup is getattr(builtins, " \
           "'ExceptionGroup', None), exceptstar.ExceptionGroup.__module__)"
    for pure in (False, True):
        out = run_python(sys.executable, code, pure=pure).stdout.split()
        is_pure = pure or sys.version_info < (3, 11)
        # Before 3.11 the pure classes are the built-in names (pickle finds them
        # there); forced pure on 3.11+ they stand beside the native ones.
        in_builtins = not pure or sys.version_info < (3, 11)
        assert out == [str(is_pure), str(in_builtins), "builtins"]


@pytest.mark.needs_processes
def test_import_is_light() -> None:
    code = ("import sys; before = set(sys.modules); import exceptstar; "
            "print(sorted(set(sys.modules) - before))")
    for pure in (False, True):
        loaded = run_python(sys.executable, code, pure=pure).stdout
        for heavy in ("inspect", "typing", "ast", "tokenize", "traceback", "ctypes", "types'"):
            assert f"'{heavy}" not in loaded, loaded


DEEP = """
import sys, exceptstar
E = exceptstar.ExceptionGroup
eg = ValueError(0)
for i in range(100_000):
    eg = E('m', [eg])
print(str(eg))
for name, call in [('split', lambda: eg.split(TypeError)), ('subgroup', lambda: eg.subgroup(ValueError)),
                   ('repr', lambda: repr(eg))]:
    try:
        call()
        print(name, 'ok')
    except RecursionError:
        print(name, 'RecursionError')
del eg
print('freed')
"""


@pytest.mark.needs_processes
def test_very_deep_nesting_never_crashes() -> None:
    proc = run_python(sys.executable, DEEP, pure=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n") == [
        "m (1 sub-exception)",
        "split RecursionError",
        "subgroup RecursionError",
        "repr RecursionError",
        "freed",
        "",
    ]
    if native_python():
        native = run_native(DEEP, timeout=300)
        assert native.stdout == proc.stdout


NOTE_ERRORS = """
for call in (lambda: KeyError().add_note(b"x"), lambda: BaseException.add_note(1, "x")):
    try:
        call()
    except TypeError as error:
        print(error)
"""


def native_note_errors() -> list[str]:
    """add_note's TypeErrors in this interpreter's words (3.11+), else in the newest CPython's."""
    if sys.version_info >= (3, 11):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(NOTE_ERRORS, {})
        return out.getvalue().splitlines()
    return run_native(NOTE_ERRORS).stdout.splitlines()


def test_public_add_note_on_every_version() -> None:
    e = KeyError("k")
    exceptstar.add_note(e, "first")
    assert e.__notes__ == ["first"]  # type: ignore[attr-defined]
    wrong_type, not_an_exception = native_note_errors()
    with pytest.raises(TypeError) as info:
        exceptstar.add_note(e, b"x")  # type: ignore[arg-type]
    assert str(info.value) == wrong_type
    with pytest.raises(TypeError) as info:
        exceptstar.add_note(1, "x")  # type: ignore[arg-type]
    assert str(info.value) == not_an_exception


@pytest.mark.skipif(sys.version_info < (3, 9) or sys.version_info >= (3, 11), reason="3.9/3.10's own alias class")
@pytest.mark.skipif(PYPY39, reason="PyPy 3.9 pickles every types.GenericAlias (list[int] too) as its own "
                                   "_pypy_generic_alias.GenericAlias, which only PyPy loads")
def test_a_pickled_alias_is_native_3_11s() -> None:
    """``ExceptionGroup[KeyError]`` pickles as ``types.GenericAlias`` of the built-in name, as 3.11's does."""
    import pickle

    data = pickle.dumps(_groups.ExceptionGroup[KeyError])
    assert type(pickle.loads(data)) is type(list[int])
    exe = native_python()
    if exe is None:
        pytest.skip("no CPython 3.11+ on this machine")
    code = "import pickle, sys, types; alias = pickle.loads(sys.stdin.buffer.read()); " \
           "print(repr(alias), type(alias) is types.GenericAlias, alias == ExceptionGroup[KeyError])"
    proc = subprocess.run([exe, "-c", code], input=data, capture_output=True)
    assert proc.stdout.decode() == "ExceptionGroup[KeyError] True True\n", proc.stderr
