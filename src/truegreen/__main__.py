from truegreen.cli import main

raise SystemExit(main())
