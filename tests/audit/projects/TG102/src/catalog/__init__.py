from catalog.models import MODELS as CATALOG
