"""Names vulture (``--min-confidence 80``) reports as unused that are used: read, never run.

Each is a true false positive; ``tests/test_dead_code.py`` passes this file to vulture.
"""

# attention_core/translator/model.py, gru_step_back: the caller's gradient arrays,
# accumulated in place (gW += ..., gb += ...): the call's output, not a local.
gW
gb
# publish/targets/serve.py, _Server.handle_error: socketserver's signature, which it overrides.
request
# render.py, UserError.show: click.ClickException.show(file=None), which it overrides.
file
# publish/rendering/dask_plugin.py, SpeedupsPlugin.setup: distributed calls plugin.setup(worker=...)
# by keyword, so the parameter keeps its name though the plugin needs no worker.
worker
